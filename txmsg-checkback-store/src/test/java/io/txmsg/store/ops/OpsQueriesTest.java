package io.txmsg.store.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.StoreFixtures;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.DeadLetterKind;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.PreparedStatement;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The operators' queries, the same on every enabled database. */
class OpsQueriesTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  @ParameterizedTest
  @MethodSource(DB)
  void parkedCountsArePerGroupAndCountOnlyParkedDeadLetters(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      assertThat(SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_")).isTrue();
      TxmsgStore store = TxmsgStore.detect(db.dataSource(), "txmsg_");
      DeadLetters deadLetters = new DeadLetters(db.dataSource(), store);
      for (DeadLetterRow d :
          List.of(
              deadLetter("points", "d1"),
              deadLetter("points", "d2"),
              deadLetter("mail", "d3"),
              deadLetter("mail", "d4"))) {
        assertThat(deadLetters.park(d)).isTrue();
      }
      StoreTransactions tx = new StoreTransactions(db.dataSource(), store);
      boolean replayed =
          tx.run(c -> deadLetters.markReplayed(c, "mail", "d4", "0".repeat(64), "r"));
      assertThat(replayed).isTrue();

      List<ParkedCount> counts = tx.run(new OpsQueries(store)::parkedCounts);

      assertThat(counts)
          .extracting(c -> c.getConsumerGroup() + "=" + c.getCount())
          .containsExactly("mail=1", "points=2");
    }
  }

  /**
   * The rows a store's producer still owes: every status but SENT, of that store id only (the rows
   * the starter's store-id check counts).
   */
  @ParameterizedTest
  @MethodSource(DB)
  void unsentJournalRowsCountEveryStatusButSentOfOneStoreId(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      assertThat(SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_")).isTrue();
      TxmsgStore store = TxmsgStore.detect(db.dataSource(), "txmsg_");
      Journal journal = new Journal(db.dataSource(), store);
      StoreTransactions tx = new StoreTransactions(db.dataSource(), store);
      int n = 0;
      for (JournalStatus status : JournalStatus.values()) {
        for (String storeId : List.of("default", "billing")) {
          JournalRow row = StoreFixtures.journalRow("e" + n++);
          row.setStoreId(storeId);
          tx.run(
              c -> {
                journal.insert(c, row, 1000); // always PENDING
                try (PreparedStatement p =
                    c.prepareStatement("UPDATE txmsg_journal SET status = ? WHERE event_id = ?")) {
                  p.setString(1, status.name());
                  p.setString(2, row.getEventId());
                  assertThat(p.executeUpdate()).isOne();
                }
                return null;
              });
        }
      }
      OpsQueries queries = new OpsQueries(store);

      long unsent = tx.run(c -> queries.unsentJournalRows(c, "default"));
      long none = tx.run(c -> queries.unsentJournalRows(c, "orders"));

      assertThat(unsent)
          .as("PENDING, SENDING, RETRY, DEAD")
          .isEqualTo(JournalStatus.values().length - 1);
      assertThat(none).isZero();
    }
  }

  private static DeadLetterRow deadLetter(String group, String eventId) {
    DeadLetterRow r = new DeadLetterRow();
    r.setConsumerGroup(group);
    r.setEventId(eventId);
    r.setRequestHash("0".repeat(64));
    r.setKind(DeadLetterKind.MESSAGE);
    r.setReason(ParkReason.PERMANENT_ERROR);
    return r;
  }
}
