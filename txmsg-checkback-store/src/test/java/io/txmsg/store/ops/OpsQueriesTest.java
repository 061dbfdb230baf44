package io.txmsg.store.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.DeadLetterKind;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
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
