package io.txmsg.boot.jpa;

import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.DeliveryMode;
import io.txmsg.api.Envelope;
import io.txmsg.api.EventAlreadyCommittedException;
import io.txmsg.api.TransactionNotJoinableException;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxResult;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.store.spring.SpringLocalTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * JPA (Hibernate as Spring Boot 4 manages it, with JpaTransactionManager) and txmsg in one
 * transaction, in both delivery modes, on the real broker over each enabled transport and every
 * enabled database: {@code publish} inside the caller's transaction and {@code execute} with an
 * action that writes entities. Entity changes and txmsg's rows commit and roll back together,
 * including a flush that fails only at commit.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JpaJoinedPublishTest {
  private static final Duration QUIET = Duration.ofSeconds(6);
  private static final Map<String, Harness> HARNESS = new ConcurrentHashMap<>();
  private static volatile long lastNegative = System.nanoTime();

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (DeliveryMode mode : List.of(DeliveryMode.HALF_MESSAGE, DeliveryMode.OUTBOX)) {
      TestTransport.realWith(TestDatabases.list())
          .forEach(a -> out.add(Arguments.of(mode, a.get()[0], a.get()[1])));
    }
    return out.stream();
  }

  /** A database with the JPA entities, a producer on it, and an observer group on its topic. */
  static final class Harness implements AutoCloseable {
    final DatabaseFixture db;
    final TestTransport.Open transport;
    final String topic = "jpa-" + UUID.randomUUID().toString().substring(0, 8);
    final LocalContainerEntityManagerFactoryBean emfBean;
    final EntityManagerFactory emf;
    final EntityManager em;
    final JpaTransactionManager tm;
    final TxProducer producer;
    final Subscription observer;
    final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    final Set<String> mustNotArrive = ConcurrentHashMap.newKeySet();

    Harness(DeliveryMode mode, TestTransport kind, TestDatabase dbKind) throws Exception {
      db = dbKind.open();
      transport = kind.open();
      emfBean = new LocalContainerEntityManagerFactoryBean();
      emfBean.setDataSource(db.dataSource());
      emfBean.setPackagesToScan(JpaPayment.class.getPackageName());
      emfBean.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
      Properties jpa = new Properties();
      jpa.put("hibernate.hbm2ddl.auto", "create");
      emfBean.setJpaProperties(jpa);
      emfBean.afterPropertiesSet();
      emf = emfBean.getObject();
      em = SharedEntityManagerCreator.createSharedEntityManager(emf);
      tm = new JpaTransactionManager(emf); // binds the JDBC connection too (HibernateJpaDialect)
      transport.createTopic(
          topic, mode == DeliveryMode.OUTBOX ? TopicType.NORMAL : TopicType.TRANSACTION);
      producer =
          TxProducer.builder()
              .dataSource(db.dataSource())
              .transport(transport.transport())
              .transactions(new SpringLocalTransactions(tm, db.dataSource()))
              .settings(
                  new TxProducerSettings()
                      .topics(topic)
                      .storeId("jpa-" + dbKind.id() + "-" + topic.substring(4))
                      .deliveryMode(mode)
                      .autoCreateSchema(true)
                      .republishAfter(Duration.ofSeconds(60))
                      .fenceAfterChecks(2))
              .build();
      String group = "observer-" + topic;
      observer =
          transport
              .transport()
              .subscribe(
                  new SubscriptionSpec(group, Map.of(topic, "*"), 4),
                  m -> {
                    deliveries
                        .computeIfAbsent(
                            m.properties().get(Envelope.EVENT_ID), k -> new AtomicInteger())
                        .incrementAndGet();
                    return Verdict.ACK;
                  });
      EmbeddedRocketMQ.shared().awaitSubscribed(group, topic, Duration.ofSeconds(30));
    }

    TxMessageTemplate txmsg() {
      return producer.template();
    }

    TransactionTemplate tx() {
      return new TransactionTemplate(tm);
    }

    TxMessage message(String id) {
      return TxMessage.builder()
          .eventId("evt-" + id)
          .topic(topic)
          .eventType("PaymentSucceeded")
          .aggregate("Payment", id, 1)
          .payload(("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8))
          .build();
    }

    int count(String sql, String arg) throws Exception {
      try (Connection c = db.dataSource().getConnection();
          PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, arg);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getInt(1);
        }
      }
    }

    boolean paymentExists(String id) throws Exception {
      return count("SELECT COUNT(*) FROM jpa_payment WHERE id = ?", id) == 1;
    }

    boolean journalRowExists(String eventId) throws Exception {
      return count("SELECT COUNT(*) FROM txmsg_journal WHERE event_id = ?", eventId) == 1;
    }

    int deliveries(String eventId) {
      AtomicInteger n = deliveries.get(eventId);
      return n == null ? 0 : n.get();
    }

    void mustNotArrive(String eventId) {
      mustNotArrive.add(eventId);
      lastNegative = System.nanoTime();
    }

    void awaitDelivered(String eventId) throws Exception {
      assertThat(await(() -> deliveries(eventId) >= 1)).as("%s delivered", eventId).isTrue();
    }

    @Override
    public void close() throws Exception {
      try {
        observer.close();
        producer.close();
        transport.close();
      } finally {
        emfBean.destroy();
        db.close();
      }
    }
  }

  private static Harness harness(DeliveryMode mode, TestTransport t, TestDatabase db) {
    return HARNESS.computeIfAbsent(
        mode + "/" + t + "/" + db,
        k -> {
          try {
            return new Harness(mode, t, db);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @AfterAll
  static void closeAll() throws Exception {
    for (Harness h : HARNESS.values()) {
      h.close();
    }
    HARNESS.clear();
  }

  private static boolean await(BooleanSupplier check) throws InterruptedException {
    long until = System.nanoTime() + DELIVERY.toNanos();
    while (!check.getAsBoolean()) {
      if (System.nanoTime() > until) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
  }

  private static String id() {
    return UUID.randomUUID().toString().substring(0, 12);
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(1)
  void anEntityAndAPublishCommitTogetherAndTheEventIsDelivered(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    Harness h = harness(mode, transport, kind);
    String id = id();
    h.tx()
        .executeWithoutResult(
            st -> {
              h.em.persist(new JpaPayment(id, "ref-" + id, 10)); // flushed at commit
              h.txmsg().publish(h.message(id));
            });
    assertThat(h.paymentExists(id)).isTrue();
    assertThat(h.journalRowExists("evt-" + id)).isTrue();
    h.awaitDelivered("evt-" + id);
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(2)
  void aRollbackDropsTheEntityAndThePublish(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    Harness h = harness(mode, transport, kind);
    String id = id();
    assertThatThrownBy(
            () ->
                h.tx()
                    .executeWithoutResult(
                        st -> {
                          h.em.persist(new JpaPayment(id, "ref-" + id, 10));
                          h.em.flush();
                          h.txmsg().publish(h.message(id));
                          throw new IllegalStateException("card declined");
                        }))
        .hasMessage("card declined");
    h.mustNotArrive("evt-" + id);
    assertThat(h.paymentExists(id)).isFalse();
    assertThat(h.journalRowExists("evt-" + id)).isFalse();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(3)
  void aFlushThatFailsAtCommitDeliversNothing(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    Harness h = harness(mode, transport, kind);
    String first = id();
    h.tx().executeWithoutResult(st -> h.em.persist(new JpaPayment(first, "ref-" + first, 1)));
    String id = id();
    // The unique violation happens only in Hibernate's flush at commit, after txmsg's check.
    assertThatThrownBy(
            () ->
                h.tx()
                    .executeWithoutResult(
                        st -> {
                          h.em.persist(new JpaPayment(id, "ref-" + first, 10));
                          h.txmsg().publish(h.message(id));
                        }))
        .isInstanceOf(RuntimeException.class);
    h.mustNotArrive("evt-" + id);
    assertThat(h.paymentExists(id)).isFalse();
    assertThat(h.journalRowExists("evt-" + id)).isFalse();
    if (mode == DeliveryMode.HALF_MESSAGE) {
      assertThat(
              h.count(
                  "SELECT COUNT(*) FROM txmsg_attempt WHERE event_id = ? AND state = 'ROLLED_BACK'",
                  "evt-" + id))
          .as("the half message's attempt settled ROLLED_BACK after the failed commit")
          .isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(4)
  void aDuplicateEventIdLetsTheCallerCommitItsEntity(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    Harness h = harness(mode, transport, kind);
    String id = id();
    h.tx()
        .executeWithoutResult(
            st -> {
              h.em.persist(new JpaPayment(id, "ref-" + id, 10));
              h.txmsg().publish(h.message(id));
            });
    String retry = id();
    h.tx()
        .executeWithoutResult(
            st -> {
              h.em.persist(new JpaPayment(retry, "ref-" + retry, 10));
              assertThatThrownBy(() -> h.txmsg().publish(h.message(id)))
                  .isInstanceOf(EventAlreadyCommittedException.class);
            });
    assertThat(h.paymentExists(retry)).isTrue();
    h.awaitDelivered("evt-" + id);
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(5)
  void aReadOnlyJpaTransactionIsRefused(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    Harness h = harness(mode, transport, kind);
    String id = id();
    TransactionTemplate ro = h.tx();
    ro.setReadOnly(true);
    assertThatThrownBy(() -> ro.executeWithoutResult(st -> h.txmsg().publish(h.message(id))))
        .isInstanceOf(TransactionNotJoinableException.class)
        .hasMessageContaining("read-only");
    h.mustNotArrive("evt-" + id);
    assertThat(h.journalRowExists("evt-" + id)).isFalse();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(6)
  void executeCommitsAndRollsBackTheActionsEntitiesWithTheJournal(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    Harness h = harness(mode, transport, kind);
    String id = id();
    TxResult<String> r =
        h.txmsg()
            .execute(
                h.message(id),
                ctx -> {
                  h.em.persist(new JpaPayment(id, "ref-" + id, 10));
                  h.em.flush(); // inside the action, where txmsg checks the transaction
                  return "ok";
                });
    assertThat(r.value()).isEqualTo("ok");
    assertThat(h.paymentExists(id)).isTrue();
    h.awaitDelivered("evt-" + id);

    String failed = id();
    assertThatThrownBy(
            () ->
                h.txmsg()
                    .execute(
                        h.message(failed),
                        ctx -> {
                          h.em.persist(new JpaPayment(failed, "ref-" + failed, 10));
                          h.em.flush();
                          throw new IllegalStateException("card declined");
                        }))
        .hasMessage("card declined");
    h.mustNotArrive("evt-" + failed);
    assertThat(h.paymentExists(failed)).isFalse();
    assertThat(h.journalRowExists("evt-" + failed)).isFalse();

    // A flush failure inside the action (unique reference) rolls both back too.
    String clash = id();
    assertThatThrownBy(
            () ->
                h.txmsg()
                    .execute(
                        h.message(clash),
                        ctx -> {
                          h.em.persist(new JpaPayment(clash, "ref-" + id, 10));
                          h.em.flush();
                          return null;
                        }))
        .isInstanceOf(RuntimeException.class);
    h.mustNotArrive("evt-" + clash);
    assertThat(h.paymentExists(clash)).isFalse();
    assertThat(h.journalRowExists("evt-" + clash)).isFalse();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  @Order(99)
  void noEventOfARolledBackOrRefusedJpaTransactionIsEverDelivered(
      DeliveryMode mode, TestTransport transport, TestDatabase kind) throws Exception {
    Harness h = harness(mode, transport, kind);
    assertThat(h.mustNotArrive)
        .as("the earlier methods recorded their negative cases")
        .isNotEmpty();
    long left = lastNegative + QUIET.toNanos() - System.nanoTime();
    if (left > 0) {
      Thread.sleep(left / 1_000_000 + 1);
    }
    for (String eventId : h.mustNotArrive) {
      assertThat(h.deliveries(eventId)).as("%s delivered", eventId).isZero();
    }
  }
}
