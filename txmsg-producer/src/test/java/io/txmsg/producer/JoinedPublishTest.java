package io.txmsg.producer;

import static io.txmsg.producer.ProducerHarness.await;
import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.DeliveryMode;
import io.txmsg.api.EventAlreadyCommittedException;
import io.txmsg.api.EventIdConflictException;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TransactionNotJoinableException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.mybatis.spring.SqlSessionTemplate;
import org.mybatis.spring.transaction.SpringManagedTransactionFactory;
import org.springframework.core.Ordered;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code TxMessageTemplate.publish} inside the caller's Spring transaction
 * (DataSourceTransactionManager), with JdbcTemplate and with MyBatis (mybatis-spring's
 * SqlSessionTemplate), in both delivery modes, on the real broker over each enabled transport and
 * every enabled database: the events go out exactly when the caller's transaction commits.
 */
// One harness per (mode, transport, database), shared by the methods: one method at a time. The
// last method checks, after one quiet period, that no event of the earlier negative cases arrived.
@Execution(ExecutionMode.SAME_THREAD)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JoinedPublishTest {
  /** Long enough for the shared cluster to check a 2 s-old half message several times. */
  private static final Duration QUIET = Duration.ofSeconds(6);

  private static final Map<String, ProducerHarness> HARNESS = new ConcurrentHashMap<>();

  /** Per harness: events of rolled-back or refused publishes, which must never arrive. */
  private static final Map<String, Set<String>> MUST_NOT_ARRIVE = new ConcurrentHashMap<>();

  /** MyBatis through mybatis-spring: its statements join the Spring transaction. */
  interface PaymentMapper {
    @Insert("INSERT INTO payment (id, amount) VALUES (#{id}, #{amount})")
    int insert(@Param("id") String id, @Param("amount") int amount);
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (DeliveryMode mode : DeliveryMode.values()) {
      if (mode != DeliveryMode.HALF_MESSAGE && mode != DeliveryMode.OUTBOX) {
        continue; // CDC is a relay of its own, tested in txmsg-cdc
      }
      TestTransport.realWith(TestDatabases.list())
          .forEach(a -> out.add(Arguments.of(mode, a.get()[0], a.get()[1])));
    }
    return out.stream();
  }

  static Stream<Arguments> halfMessageCases() {
    return cases().filter(a -> a.get()[0] == DeliveryMode.HALF_MESSAGE);
  }

  private static ProducerHarness harness(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) {
    return HARNESS.computeIfAbsent(
        mode + "/" + transport + "/" + kind,
        k -> {
          try {
            ProducerHarness h =
                mode == DeliveryMode.OUTBOX
                    ? new ProducerHarness(
                        kind,
                        transport.open(),
                        TopicType.NORMAL,
                        t -> t,
                        s -> s.deliveryMode(DeliveryMode.OUTBOX))
                    : new ProducerHarness(kind, transport.open(), s -> {});
            OutboxTest.ready(transport, h);
            return h;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** When the last negative case happened (System.nanoTime). */
  private static volatile long lastNegative = System.nanoTime();

  private static void mustNotArrive(ProducerHarness h, String eventId) {
    MUST_NOT_ARRIVE.computeIfAbsent(h.topic, k -> ConcurrentHashMap.newKeySet()).add(eventId);
    lastNegative = System.nanoTime();
  }

  @AfterEach
  void resetInterceptor() {
    HARNESS.values().forEach(h -> h.interceptor.delegate = new ProducerInterceptor() {});
  }

  @AfterAll
  static void closeAll() throws Exception {
    for (ProducerHarness h : HARNESS.values()) {
      h.close();
    }
    HARNESS.clear();
  }

  private static String id() {
    return UUID.randomUUID().toString().substring(0, 12);
  }

  private static TransactionTemplate tx(ProducerHarness h) {
    return new TransactionTemplate(new DataSourceTransactionManager(h.db.dataSource()));
  }

  private static void pay(ProducerHarness h, String id, int amount) {
    new JdbcTemplate(h.db.dataSource())
        .update("INSERT INTO payment (id, amount) VALUES (?, ?)", id, amount);
  }

  private static void awaitDelivered(ProducerHarness h, String eventId) throws Exception {
    assertThat(await(DELIVERY, () -> h.deliveryCount(eventId) >= 1))
        .as("%s delivered", eventId)
        .isTrue();
  }

  private static TxMessage withPayload(ProducerHarness h, String eventId, String payload) {
    return TxMessage.builder()
        .eventId(eventId)
        .topic(h.topic)
        .eventType("PaymentSucceeded")
        .aggregate("Payment", eventId, 1)
        .payload(payload.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(1)
  void aCommitWithJdbcTemplateDeliversEveryPublishedEventOnce(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String a = id();
    String b = id();
    tx(h)
        .executeWithoutResult(
            st -> {
              pay(h, a, 10);
              h.txmsg.template().publish(h.message(a, 10));
              h.txmsg.template().publish(h.message(b, 20)); // a second publish, same transaction
            });
    assertThat(h.paymentExists(a)).isTrue();
    awaitDelivered(h, "evt-" + a);
    awaitDelivered(h, "evt-" + b);
    JournalRow row = h.journal("evt-" + a);
    assertThat(row).isNotNull();
    if (mode == DeliveryMode.HALF_MESSAGE) {
      assertThat(h.attemptStatesOf("evt-" + a)).containsExactly("COMMITTED");
    }
  }

  /**
   * PROXY_ACK with joined publishing: after the caller's commit the half messages are committed and
   * their rows recorded SENT by the batched recorder (not by a transaction per row on the caller's
   * thread), each with its own half message's id; every event delivered once.
   */
  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("halfMessageCases")
  @Order(1)
  void proxyAckRowsOfAJoinedPublishAreRecordedSentByTheBatchedRecorder(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            transport.open(),
            s -> s.confirmation(io.txmsg.api.DeliveryConfirmation.PROXY_ACK))) {
      OutboxTest.ready(transport, h);
      List<String> events = new ArrayList<>();
      tx(h)
          .executeWithoutResult(
              st -> {
                for (int i = 0; i < 3; i++) {
                  String id = id();
                  pay(h, id, 10 + i);
                  h.txmsg.template().publish(h.message(id, 10 + i));
                  events.add("evt-" + id);
                }
              });
      Set<String> messageIds = new java.util.HashSet<>();
      for (String eventId : events) {
        assertThat(
                await(
                    DELIVERY,
                    () -> h.journalStatus(eventId) == io.txmsg.store.journal.JournalStatus.SENT))
            .as("%s SENT", eventId)
            .isTrue();
        messageIds.add(h.journal(eventId).getBrokerMessageId());
        awaitDelivered(h, eventId);
      }
      assertThat(messageIds).doesNotContainNull().hasSize(events.size());
      Thread.sleep(1000);
      for (String eventId : events) {
        // Once, or twice when the commit and a COMMIT check-back of the same half message race
        // on a loaded machine (the broker then writes the final message twice, as in
        // TxMessageTemplateTest's check-back case): always the committing attempt's message.
        assertThat(h.deliveries.get(eventId))
            .as(eventId)
            .hasSizeBetween(1, 2)
            .containsOnly(h.journal(eventId).getAttemptId());
      }
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(2)
  void myBatisMapperWritesAndThePublishCommitOrRollBackTogether(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    Configuration configuration =
        new Configuration(
            new Environment("joined", new SpringManagedTransactionFactory(), h.db.dataSource()));
    configuration.addMapper(PaymentMapper.class);
    SqlSessionFactory factory = new SqlSessionFactoryBuilder().build(configuration);
    PaymentMapper payments = new SqlSessionTemplate(factory).getMapper(PaymentMapper.class);
    String committed = id();
    tx(h)
        .executeWithoutResult(
            st -> {
              payments.insert(committed, 10);
              h.txmsg.template().publish(h.message(committed, 10));
            });
    String rolledBack = id();
    assertThatThrownBy(
            () ->
                tx(h)
                    .executeWithoutResult(
                        st -> {
                          payments.insert(rolledBack, 20);
                          h.txmsg.template().publish(h.message(rolledBack, 20));
                          throw new IllegalStateException("card declined");
                        }))
        .hasMessage("card declined");
    mustNotArrive(h, "evt-" + rolledBack);
    assertThat(h.paymentExists(committed)).isTrue();
    assertThat(h.paymentExists(rolledBack)).isFalse();
    assertThat(h.journal("evt-" + rolledBack)).isNull();
    awaitDelivered(h, "evt-" + committed);
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(3)
  void aRollbackWritesNothingAndSettlesTheAttemptRolledBack(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String id = id();
    assertThatThrownBy(
            () ->
                tx(h)
                    .executeWithoutResult(
                        st -> {
                          pay(h, id, 10);
                          h.txmsg.template().publish(h.message(id, 10));
                          throw new IllegalStateException("business rule broken");
                        }))
        .hasMessage("business rule broken");
    mustNotArrive(h, "evt-" + id);
    assertThat(h.paymentExists(id)).isFalse();
    assertThat(h.journal("evt-" + id)).isNull();
    if (mode == DeliveryMode.HALF_MESSAGE) {
      // afterCompletion, on a pool connection of its own: the check-back now answers ROLLBACK.
      assertThat(h.attemptStatesOf("evt-" + id)).containsExactly("ROLLED_BACK");
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("halfMessageCases")
  @Order(4)
  void aCaughtPublishFailureMakesTheCallersCommitThrow(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String id = id();
    // Fails after the attempt insert and the half send: the attempt row is left COMMITTED
    // without its journal row, which the pre-commit check refuses.
    h.interceptor.delegate =
        new ProducerInterceptor() {
          @Override
          public void afterHalfMessageSent(TxMessage message, String attemptId) {
            throw new IllegalStateException("injected after the half send");
          }
        };
    assertThatThrownBy(
            () ->
                tx(h)
                    .executeWithoutResult(
                        st -> {
                          pay(h, id, 10);
                          try {
                            h.txmsg.template().publish(h.message(id, 10));
                          } catch (TransactionRolledBackException caught) {
                            // swallowed: the commit must still fail
                          }
                        }))
        .isInstanceOf(TransactionRolledBackException.class)
        .hasMessageContaining("evt-" + id);
    mustNotArrive(h, "evt-" + id);
    assertThat(h.paymentExists(id)).isFalse();
    assertThat(h.journal("evt-" + id)).isNull();
    assertThat(h.attemptStatesOf("evt-" + id)).containsExactly("ROLLED_BACK");
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(5)
  void aNestedScopeRolledBackAfterAPublishMakesTheCommitThrow(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    DataSourceTransactionManager tm = new DataSourceTransactionManager(h.db.dataSource());
    TransactionTemplate nested = new TransactionTemplate(tm);
    nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
    String id = id();
    assertThatThrownBy(
            () ->
                new TransactionTemplate(tm)
                    .executeWithoutResult(
                        st -> {
                          pay(h, id, 10);
                          nested.executeWithoutResult(
                              inner -> {
                                h.txmsg.template().publish(h.message(id, 10));
                                inner.setRollbackOnly(); // back to the savepoint: rows gone
                              });
                        }))
        .isInstanceOf(TransactionRolledBackException.class)
        .hasMessageContaining("self-check");
    mustNotArrive(h, "evt-" + id);
    assertThat(h.paymentExists(id)).isFalse();
    assertThat(h.journal("evt-" + id)).isNull();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(6)
  void aDuplicateEventIdIsAlreadyCommittedWithTheSameHashAndAConflictWithAnother(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String eventId = "evt-" + id();
    String first = id();
    tx(h)
        .executeWithoutResult(
            st -> {
              pay(h, first, 10);
              h.txmsg.template().publish(withPayload(h, eventId, "{\"v\":1}"));
            });
    String committedBy = h.journal(eventId).getAttemptId();

    // Same payload: "already committed"; the caller catches it and commits the rest.
    String retry = id();
    tx(h)
        .executeWithoutResult(
            st -> {
              pay(h, retry, 10);
              assertThatThrownBy(
                      () -> h.txmsg.template().publish(withPayload(h, eventId, "{\"v\":1}")))
                  .isInstanceOf(EventAlreadyCommittedException.class)
                  .hasMessageContaining(committedBy);
            });
    assertThat(h.paymentExists(retry)).isTrue();
    assertThat(h.journal(eventId).getAttemptId()).isEqualTo(committedBy);

    // Another payload under the same eventId: a conflict, which dooms the transaction.
    String reuse = id();
    assertThatThrownBy(
            () ->
                tx(h)
                    .executeWithoutResult(
                        st -> {
                          pay(h, reuse, 10);
                          try {
                            h.txmsg.template().publish(withPayload(h, eventId, "{\"v\":2}"));
                          } catch (EventIdConflictException caught) {
                            // swallowed: the commit must still fail
                          }
                        }))
        .isInstanceOf(TransactionRolledBackException.class);
    assertThat(h.paymentExists(reuse)).isFalse();
    assertThat(h.journal(eventId).getAttemptId()).isEqualTo(committedBy);
    awaitDelivered(h, eventId);
    if (mode == DeliveryMode.HALF_MESSAGE) {
      // The first attempt committed; the retry's attempt committed as ROLLED_BACK (its half was
      // rolled back at once); the conflicting one's rows went with its rolled-back transaction
      // (its half, rolled back at once too, needs no settlement).
      assertThat(h.attemptStatesOf(eventId)).containsExactlyInAnyOrder("COMMITTED", "ROLLED_BACK");
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(7)
  void publishIsRefusedOutsideATransactionInAReadOnlyOneAndOnAnotherDataSource(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String outside = id();
    assertThatThrownBy(() -> h.txmsg.template().publish(h.message(outside, 1)))
        .isInstanceOf(TransactionNotJoinableException.class)
        .hasMessageContaining("MANDATORY");
    mustNotArrive(h, "evt-" + outside);

    String readOnly = id();
    TransactionTemplate ro = tx(h);
    ro.setReadOnly(true);
    assertThatThrownBy(
            () -> ro.executeWithoutResult(st -> h.txmsg.template().publish(h.message(readOnly, 1))))
        .isInstanceOf(TransactionNotJoinableException.class)
        .hasMessageContaining("read-only");
    mustNotArrive(h, "evt-" + readOnly);

    // A transaction manager of another DataSource (here a wrapper txmsg does not know): its
    // connection is not the one txmsg would write on.
    String other = id();
    DataSource another = new DelegatingDataSource(h.db.dataSource());
    TransactionTemplate otherTx =
        new TransactionTemplate(new DataSourceTransactionManager(another));
    assertThatThrownBy(
            () ->
                otherTx.executeWithoutResult(
                    st -> {
                      new JdbcTemplate(another)
                          .update("INSERT INTO payment (id, amount) VALUES (?, 1)", other);
                      h.txmsg.template().publish(h.message(other, 1));
                    }))
        .isInstanceOf(TransactionNotJoinableException.class)
        .hasMessageContaining("no JDBC connection of txmsg's DataSource")
        .hasMessageContaining("ConnectionHolder for " + another);
    mustNotArrive(h, "evt-" + other);
    for (String id : List.of(outside, readOnly, other)) {
      assertThat(h.journal("evt-" + id)).isNull();
      assertThat(h.attemptStatesOf("evt-" + id)).isEmpty();
    }
  }

  /**
   * How a JTA transaction looks to txmsg: a transaction is active with synchronization, and no JDBC
   * connection of txmsg's DataSource is bound to it.
   */
  static final class ResourcelessTransactionManager extends AbstractPlatformTransactionManager {
    @Override
    protected Object doGetTransaction() {
      return new Object();
    }

    @Override
    protected void doBegin(Object transaction, TransactionDefinition definition) {}

    @Override
    protected void doCommit(DefaultTransactionStatus status) {}

    @Override
    protected void doRollback(DefaultTransactionStatus status) {}
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(7)
  void publishIsRefusedWithoutABoundConnectionWithoutSynchronizationAndInAutoCommit(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String jta = id();
    TransactionTemplate resourceless =
        new TransactionTemplate(new ResourcelessTransactionManager());
    assertThatThrownBy(
            () ->
                resourceless.executeWithoutResult(
                    st -> h.txmsg.template().publish(h.message(jta, 1))))
        .isInstanceOf(TransactionNotJoinableException.class)
        .hasMessageContaining("bound resources: none (a JTA transaction binds no JDBC connection)");
    mustNotArrive(h, "evt-" + jta);

    String never = id();
    DataSourceTransactionManager unsynchronized =
        new DataSourceTransactionManager(h.db.dataSource());
    unsynchronized.setTransactionSynchronization(
        AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
    assertThatThrownBy(
            () ->
                new TransactionTemplate(unsynchronized)
                    .executeWithoutResult(st -> h.txmsg.template().publish(h.message(never, 1))))
        .isInstanceOf(TransactionNotJoinableException.class)
        .hasMessageContaining("SYNCHRONIZATION_NEVER");
    mustNotArrive(h, "evt-" + never);

    // A connection bound by hand, in auto-commit, inside a transaction: its rows would commit
    // at once, whatever the transaction does.
    String autoCommit = id();
    try (Connection c = h.db.dataSource().getConnection()) {
      c.setAutoCommit(true);
      assertThatThrownBy(
              () ->
                  resourceless.executeWithoutResult(
                      st -> {
                        TransactionSynchronizationManager.bindResource(
                            h.db.dataSource(), new ConnectionHolder(c));
                        try {
                          h.txmsg.template().publish(h.message(autoCommit, 1));
                        } finally {
                          TransactionSynchronizationManager.unbindResource(h.db.dataSource());
                        }
                      }))
          .isInstanceOf(TransactionNotJoinableException.class)
          .hasMessageContaining("auto-commit");
    }
    mustNotArrive(h, "evt-" + autoCommit);
    for (String id : List.of(jta, never, autoCommit)) {
      assertThat(h.journal("evt-" + id)).isNull();
      assertThat(h.attemptStatesOf("evt-" + id)).isEmpty();
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("halfMessageCases")
  @Order(8)
  void aCheckBackDuringTheOpenTransactionAnswersUnknownThenTheCommitDelivers(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String id = id();
    int unknownBefore = h.checkbacksAnswered("UNKNOWN");
    tx(h)
        .executeWithoutResult(
            st -> {
              pay(h, id, 10);
              h.txmsg.template().publish(h.message(id, 10));
              try {
                // The broker checks the half message while this transaction holds its attempt key.
                assertThat(await(DELIVERY, () -> h.checkbacksAnswered("UNKNOWN") > unknownBefore))
                    .as("a check-back arrived during the open transaction")
                    .isTrue();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              assertThat(h.deliveryCount("evt-" + id)).isZero();
            });
    awaitDelivered(h, "evt-" + id);
    assertThat(h.attemptStatesOf("evt-" + id)).containsExactly("COMMITTED");
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("halfMessageCases")
  @Order(9)
  void aHalfCommitLostAfterTheCallersCommitIsDeliveredByTheCheckBack(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String id = id();
    // The producer dies between the caller's commit and the half-message commit.
    h.interceptor.delegate =
        new ProducerInterceptor() {
          @Override
          public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
            return false;
          }
        };
    int commitsBefore = h.checkbacksAnswered("COMMIT");
    tx(h)
        .executeWithoutResult(
            st -> {
              pay(h, id, 10);
              h.txmsg.template().publish(h.message(id, 10));
            });
    awaitDelivered(h, "evt-" + id);
    assertThat(h.checkbacksAnswered("COMMIT"))
        .as("delivered by a check-back")
        .isGreaterThan(commitsBefore);
    assertThat(h.attemptStatesOf("evt-" + id)).containsExactly("COMMITTED");
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("halfMessageCases")
  @Order(10)
  void aProducerThatDiesBeforeTheCallersCommitIsFencedAndNeverDelivered(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String id = id();
    // A transaction whose process dies after publish: the database rolls it back, and no
    // after-completion callback ever runs (nothing settles the attempt or rolls the half back).
    try (Connection c = h.db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      TransactionSynchronizationManager.initSynchronization();
      TransactionSynchronizationManager.setActualTransactionActive(true);
      TransactionSynchronizationManager.bindResource(h.db.dataSource(), new ConnectionHolder(c));
      try {
        h.txmsg.template().publish(h.message(id, 10));
      } finally {
        c.rollback();
        TransactionSynchronizationManager.unbindResource(h.db.dataSource());
        TransactionSynchronizationManager.clear(); // the callbacks die with the process
      }
    }
    mustNotArrive(h, "evt-" + id);
    // The attempt key is free: the check-back fences the attempt and answers ROLLBACK.
    assertThat(await(DELIVERY, () -> fenced(h, "evt-" + id)))
        .as("fenced by the check-back")
        .isTrue();
    assertThat(h.journal("evt-" + id)).isNull();
  }

  private static boolean fenced(ProducerHarness h, String eventId) {
    try {
      return h.attemptStatesOf(eventId).equals(List.of("FENCED"));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(11)
  void springsRollbackOnlyMarkRollsThePublishBackAndTheCommitThrows(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    DataSourceTransactionManager tm = new DataSourceTransactionManager(h.db.dataSource());
    TransactionTemplate inner = new TransactionTemplate(tm); // REQUIRED: joins the caller's
    String id = id();
    // An inner REQUIRED scope fails after the publish and the caller catches its exception:
    // Spring marks the whole transaction rollback-only, and the caller's commit rolls back.
    assertThatThrownBy(
            () ->
                new TransactionTemplate(tm)
                    .executeWithoutResult(
                        st -> {
                          pay(h, id, 10);
                          h.txmsg.template().publish(h.message(id, 10));
                          try {
                            inner.executeWithoutResult(
                                in -> {
                                  throw new IllegalStateException("stock reservation failed");
                                });
                          } catch (IllegalStateException caught) {
                            // swallowed: the caller returns normally
                          }
                        }))
        .isInstanceOf(UnexpectedRollbackException.class);
    mustNotArrive(h, "evt-" + id);

    // The caller marks its own transaction rollback-only: Spring rolls back without an exception.
    String marked = id();
    new TransactionTemplate(tm)
        .executeWithoutResult(
            st -> {
              pay(h, marked, 10);
              h.txmsg.template().publish(h.message(marked, 10));
              st.setRollbackOnly();
            });
    mustNotArrive(h, "evt-" + marked);
    for (String rolledBack : List.of(id, marked)) {
      assertThat(h.paymentExists(rolledBack)).isFalse();
      assertThat(h.journal("evt-" + rolledBack)).isNull();
      // HALF_MESSAGE: settled after the rollback on a connection of its own, the half rolled
      // back; OUTBOX: the journal row was the only row, and it went with the transaction.
      assertThat(h.attemptStatesOf("evt-" + rolledBack))
          .isEqualTo(mode == DeliveryMode.HALF_MESSAGE ? List.of("ROLLED_BACK") : List.of());
    }
  }

  /** A caller's synchronization whose beforeCommit inserts a payment id that already exists. */
  private static TransactionSynchronization duplicatePaymentBeforeCommit(
      ProducerHarness h, String takenId, int order, boolean swallow) {
    return new TransactionSynchronization() {
      @Override
      public int getOrder() {
        return order;
      }

      @Override
      public void beforeCommit(boolean readOnly) {
        try {
          pay(h, takenId, 99); // same connection (the transaction's), duplicate key
        } catch (DataIntegrityViolationException failed) {
          if (!swallow) {
            throw failed;
          }
        }
      }
    };
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(12)
  void aLaterSynchronizationsFailingStatementFailsTheCommitAndNothingIsDelivered(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String taken = id();
    pay(h, taken, 1); // committed at once (no transaction): the key the synchronization reuses
    String id = id();
    assertThatThrownBy(
            () ->
                tx(h)
                    .executeWithoutResult(
                        st -> {
                          pay(h, id, 10);
                          h.txmsg.template().publish(h.message(id, 10));
                          // Default order, registered after txmsg's: its beforeCommit runs
                          // after the self-check.
                          TransactionSynchronizationManager.registerSynchronization(
                              duplicatePaymentBeforeCommit(
                                  h, taken, Ordered.LOWEST_PRECEDENCE, false));
                        }))
        .isInstanceOf(DataIntegrityViolationException.class);
    mustNotArrive(h, "evt-" + id);
    assertThat(h.paymentExists(id)).isFalse();
    assertThat(h.journal("evt-" + id)).isNull();
    assertThat(h.attemptStatesOf("evt-" + id))
        .isEqualTo(mode == DeliveryMode.HALF_MESSAGE ? List.of("ROLLED_BACK") : List.of());
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(13)
  void aSynchronizationSwallowingItsFailedStatementNeverGetsAnEventOutWithoutItsRows(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    String taken = id();
    pay(h, taken, 1);
    // Ordered before txmsg's synchronization: its failure precedes the self-check.
    String earlier = id();
    Runnable earlierTx =
        () ->
            tx(h)
                .executeWithoutResult(
                    st -> {
                      pay(h, earlier, 10);
                      h.txmsg.template().publish(h.message(earlier, 10));
                      TransactionSynchronizationManager.registerSynchronization(
                          duplicatePaymentBeforeCommit(h, taken, 0, true));
                    });
    // Default order, registered after txmsg's: its failure follows the self-check.
    String later = id();
    Runnable laterTx =
        () ->
            tx(h)
                .executeWithoutResult(
                    st -> {
                      pay(h, later, 10);
                      h.txmsg.template().publish(h.message(later, 10));
                      TransactionSynchronizationManager.registerSynchronization(
                          duplicatePaymentBeforeCommit(h, taken, Ordered.LOWEST_PRECEDENCE, true));
                    });
    if (kind == TestDatabase.POSTGRESQL) {
      // The failed statement aborted the whole transaction. Before the self-check, the check's
      // own statement fails: the commit throws, nothing is delivered.
      assertThatThrownBy(earlierTx::run)
          .isInstanceOf(TransactionRolledBackException.class)
          .hasMessageContaining("self-check");
      mustNotArrive(h, "evt-" + earlier);
      assertThat(h.paymentExists(earlier)).isFalse();
      assertThat(h.journal("evt-" + earlier)).isNull();
      assertThat(h.attemptStatesOf("evt-" + earlier))
          .isEqualTo(mode == DeliveryMode.HALF_MESSAGE ? List.of("ROLLED_BACK") : List.of());
      // After the self-check: the driver's commit of the aborted transaction returns normally
      // while the server rolls it back, so Spring reports a commit. txmsg reads its rows back
      // before anything goes out: they are not there, so the event is never delivered (the half
      // message is rolled back; an OUTBOX row is not sent).
      laterTx.run();
      mustNotArrive(h, "evt-" + later);
      assertThat(h.paymentExists(later)).isFalse();
      assertThat(h.journal("evt-" + later)).isNull();
      assertThat(h.attemptStatesOf("evt-" + later))
          .isEqualTo(mode == DeliveryMode.HALF_MESSAGE ? List.of("ROLLED_BACK") : List.of());
    } else {
      // H2 and MariaDB roll back the failed statement only: the rest commits, the event with it,
      // wherever the synchronization runs.
      earlierTx.run();
      laterTx.run();
      for (String committed : List.of(earlier, later)) {
        assertThat(h.paymentExists(committed)).isTrue();
        assertThat(h.journal("evt-" + committed)).isNotNull();
        awaitDelivered(h, "evt-" + committed);
      }
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(99)
  void noEventOfARolledBackOrRefusedPublishIsEverDelivered(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    ProducerHarness h = harness(mode, transport, kind);
    Set<String> ids = MUST_NOT_ARRIVE.getOrDefault(h.topic, Set.of());
    assertThat(ids).as("the earlier methods recorded their negative cases").isNotEmpty();
    // Check-backs of those half messages have come and gone; one quiet period covers every
    // harness, since all negative cases ran before this method.
    long left = lastNegative + QUIET.toNanos() - System.nanoTime();
    if (left > 0) {
      Thread.sleep(left / 1_000_000 + 1);
    }
    for (String eventId : ids) {
      assertThat(h.deliveryCount(eventId)).as("%s delivered", eventId).isZero();
    }
  }
}
