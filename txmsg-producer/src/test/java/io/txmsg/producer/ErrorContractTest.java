package io.txmsg.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.BusinessActionException;
import io.txmsg.api.NotCommittedException;
import io.txmsg.api.OutcomeUnknownException;
import io.txmsg.api.PublishException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxResult;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.FaultInjectingDataSource;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.InMemoryTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each failure of {@code execute} arrives as the public type that says what the caller needs to
 * know (see TxMessageTemplate's Javadoc), with the cause attached; commit() failures (step 7 of
 * docs/architecture.md) are settled from the attempt row: committed, not committed, or unknown.
 */
class ErrorContractTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  /** What the next commit() of the faulty DataSource does. */
  enum CommitFault {
    NONE,
    FAIL_AFTER_COMMIT,
    FAIL_AFTER_ROLLBACK,
    FAIL_LEAVING_THE_TRANSACTION_OPEN
  }

  private static final AtomicReference<CommitFault> NEXT = new AtomicReference<>(CommitFault.NONE);
  private static final AtomicReference<Thread> TEST_THREAD = new AtomicReference<>();

  /** The connection a "zombie" session kept open: its transaction still holds the attempt key. */
  private static final AtomicReference<Connection> ZOMBIE = new AtomicReference<>();

  @ParameterizedTest
  @MethodSource(DB)
  void everyFailureHasThePublicTypeThatSaysWhatHappened(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open();
        InMemoryTransport transport = new InMemoryTransport();
        TxProducer producer = producer(db.dataSource(), transport)) {
      // The broker refuses the half message: not committed, the action never ran.
      transport.failSends(true);
      assertThatThrownBy(() -> producer.template().execute(message("e1"), ctx -> "ran"))
          .isInstanceOfSatisfying(PublishException.class, p -> assertThat(p.retryable()).isTrue())
          .isInstanceOf(NotCommittedException.class);
      transport.failSends(false);
      // A checked exception of the action: not committed, the cause attached.
      Exception checked = new Exception("declined");
      assertThatThrownBy(
              () ->
                  producer
                      .template()
                      .execute(
                          message("e2"),
                          ctx -> {
                            throw checked;
                          }))
          .isInstanceOf(BusinessActionException.class)
          .hasCause(checked);
      // An unchecked exception of the action: rethrown unchanged.
      IllegalStateException unchecked = new IllegalStateException("no funds");
      assertThatThrownBy(
              () ->
                  producer
                      .template()
                      .execute(
                          message("e3"),
                          ctx -> {
                            throw unchecked;
                          }))
          .isSameAs(unchecked);
      assertThat(journalRows(db)).isZero();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aFailedCommitIsSettledFromTheAttemptRow(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open();
        InMemoryTransport transport = new InMemoryTransport();
        TxProducer producer = producer(faulty(db.dataSource()), transport)) {
      TEST_THREAD.set(Thread.currentThread());
      NEXT.set(CommitFault.FAIL_AFTER_COMMIT);
      TxResult<String> committed = producer.template().execute(message("c1"), ctx -> "value");
      assertThat(committed.eventId()).isEqualTo("c1");
      assertThat(committed.outcome()).isEqualTo(TxResult.Outcome.COMMITTED_RESULT_LOST);
      assertThat(committed.resultLost()).isTrue();
      assertThat(committed.valueIfKnown()).as("lost with the failed commit call").isEmpty();
      assertThat(journalRows(db)).isEqualTo(1);

      NEXT.set(CommitFault.FAIL_AFTER_ROLLBACK);
      assertThatThrownBy(() -> producer.template().execute(message("c2"), ctx -> "value"))
          .isInstanceOf(TransactionRolledBackException.class)
          .hasRootCauseInstanceOf(SQLException.class);
      assertThat(journalRows(db)).isEqualTo(1);

      // The session still holds the attempt key: the settlement cannot tell, never guesses.
      NEXT.set(CommitFault.FAIL_LEAVING_THE_TRANSACTION_OPEN);
      assertThatThrownBy(() -> producer.template().execute(message("c3"), ctx -> "value"))
          .isInstanceOf(OutcomeUnknownException.class);
    } finally {
      NEXT.set(CommitFault.NONE);
      Connection zombie = ZOMBIE.getAndSet(null);
      if (zombie != null && !zombie.isClosed()) {
        zombie.rollback(); // ends the zombie session (the pool may have closed it already)
        zombie.close();
      }
    }
  }

  /**
   * OUTBOX has no attempt row to settle a failed commit() from: it is OutcomeUnknownException
   * either way, and a retry with the same eventId settles it (already committed, or commits now).
   */
  @ParameterizedTest
  @MethodSource(DB)
  void outboxAFailedCommitIsUnknownAndARetryWithTheSameEventIdSettlesIt(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open();
        InMemoryTransport transport = new InMemoryTransport();
        TxProducer producer =
            TxProducer.builder()
                .dataSource(faulty(db.dataSource()))
                .transport(transport)
                .settings(
                    new TxProducerSettings()
                        .topics("payment")
                        .deliveryMode(io.txmsg.api.DeliveryMode.OUTBOX)
                        .autoCreateSchema(true)
                        .reconcilerEnabled(false))
                .build()) {
      TEST_THREAD.set(Thread.currentThread());
      NEXT.set(CommitFault.FAIL_AFTER_COMMIT);
      assertThatThrownBy(() -> producer.template().execute(message("o1"), ctx -> "value"))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageContaining("same eventId");
      assertThat(producer.template().execute(message("o1"), ctx -> "again").alreadyCommitted())
          .as("it had committed")
          .isTrue();

      NEXT.set(CommitFault.FAIL_AFTER_ROLLBACK);
      assertThatThrownBy(() -> producer.template().execute(message("o2"), ctx -> "value"))
          .isInstanceOf(OutcomeUnknownException.class);
      TxResult<String> retried = producer.template().execute(message("o2"), ctx -> "now");
      assertThat(retried.alreadyCommitted()).as("it had not: commits now").isFalse();
      assertThat(retried.value()).isEqualTo("now");
      assertThat(journalRows(db)).isEqualTo(2);
    } finally {
      NEXT.set(CommitFault.NONE);
    }
  }

  private static TxProducer producer(DataSource dataSource, InMemoryTransport transport) {
    return TxProducer.builder()
        .dataSource(dataSource)
        .transport(transport)
        .settings(
            new TxProducerSettings()
                .topics("payment")
                .autoCreateSchema(true)
                .settleLockWait(Duration.ofMillis(500))
                .reconcilerEnabled(false))
        .build();
  }

  private static TxMessage message(String id) {
    return TxMessage.builder()
        .eventId(id)
        .topic("payment")
        .eventType("Paid")
        .aggregate("Payment", id, 1)
        .payload("{}".getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private static int journalRows(DatabaseFixture db) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT COUNT(*) FROM txmsg_journal")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /**
   * A DataSource whose next commit() fails as {@link #NEXT} says (a connection lost mid-commit).
   */
  private static DataSource faulty(DataSource real) {
    return new FaultInjectingDataSource(
        real,
        (connection, m, args, call) -> {
          // Only the test thread's commit: check-backs commit on other threads meanwhile.
          if (m.getName().equals("commit") && Thread.currentThread() == TEST_THREAD.get()) {
            switch (NEXT.getAndSet(CommitFault.NONE)) {
              case FAIL_AFTER_COMMIT -> {
                connection.commit();
                throw new SQLException("connection reset after the commit", "08006");
              }
              case FAIL_AFTER_ROLLBACK -> {
                connection.rollback();
                throw new SQLException("connection reset; the server rolled back", "08006");
              }
              case FAIL_LEAVING_THE_TRANSACTION_OPEN -> {
                // The server session lives on: close() will not end it; the test ends it on
                // the physical connection (the pool evicts the broken-looking one).
                ZOMBIE.set(connection.unwrap(Connection.class));
                throw new SQLException("connection reset before the commit", "08006");
              }
              default -> {}
            }
          }
          if (m.getName().equals("close")
              && ZOMBIE.get() != null
              && ZOMBIE.get() == connection.unwrap(Connection.class)) {
            return null;
          }
          return call.proceed();
        });
  }
}
