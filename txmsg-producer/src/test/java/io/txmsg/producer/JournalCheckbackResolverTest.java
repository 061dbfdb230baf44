package io.txmsg.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.Resolution;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.transport.BrokerConnection;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The resolver's decisions from durable state, on every enabled database (no broker needed). */
class JournalCheckbackResolverTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  private static CheckbackRequest request(String store, String attemptId, int checkTimes) {
    return new CheckbackRequest(
        "t", "E", "evt-1", attemptId, store, checkTimes, Instant.now(), "m", Map.of());
  }

  @Test
  @DatabaseIndependent
  void ofNamesAMissingDataSourceOrSettings() throws Exception {
    assertThatThrownBy(() -> JournalCheckbackResolver.of(null, new TxProducerSettings()))
        .isInstanceOfSatisfying(
            InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("dataSource"));
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      assertThatThrownBy(() -> JournalCheckbackResolver.of(db.dataSource(), null))
          .isInstanceOfSatisfying(
              InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("settings"));
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void neverAnswersRollbackWhileTheAttemptsTransactionHoldsItsKey(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
      TxmsgStore store = TxmsgStore.detect(db.dataSource(), "txmsg_");
      TxProducerSettings settings =
          new TxProducerSettings()
              .connection(BrokerConnection.endpoints("unused:1"))
              .topics("t")
              .storeId("s1")
              .fenceAfterChecks(2)
              .fenceLockWait(Duration.ofMillis(300));
      JournalCheckbackResolver resolver = JournalCheckbackResolver.of(db.dataSource(), settings);
      Attempts attempts = new Attempts(db.dataSource(), store);

      assertThat(resolver.resolve(request("other-store", "a1", 9))).isEqualTo(Resolution.UNKNOWN);
      assertThat(resolver.resolve(request("s1", "a1", 1)))
          .as("too early to fence")
          .isEqualTo(Resolution.UNKNOWN);

      try (Connection holder = db.dataSource().getConnection()) {
        holder.setAutoCommit(false);
        attempts.insertCommitted(holder, "a1", "evt-1", "s1");
        assertThat(resolver.resolve(request("s1", "a1", 5))).isEqualTo(Resolution.UNKNOWN);
        holder.commit();
      }
      assertThat(resolver.resolve(request("s1", "a1", 5))).isEqualTo(Resolution.COMMIT);

      // An attempt that never reached the database, checked often enough: fenced.
      assertThat(resolver.resolve(request("s1", "a2", 5))).isEqualTo(Resolution.ROLLBACK);
      try (Connection late = db.dataSource().getConnection()) {
        late.setAutoCommit(false);
        Exception failed = null;
        try {
          attempts.insertCommitted(late, "a2", "evt-1", "s1");
        } catch (Exception e) {
          failed = e;
        }
        assertThat(failed).as("the fenced attempt can never commit").isNotNull();
        late.rollback();
      }
    }
  }
}
