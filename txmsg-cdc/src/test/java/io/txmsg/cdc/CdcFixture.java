package io.txmsg.cdc;

import io.txmsg.api.PayloadHashes;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.ReplicationSlots;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * One CDC test: a fresh database with the txmsg schema, a store id, slot and publication names of
 * its own ({@value #NAME_PREFIX}…), a transport on the shared embedded cluster, a topic and a
 * consumer group that records every delivery. Closing it drops the PostgreSQL slot and publication
 * it created (an abandoned slot keeps WAL forever) and the database.
 */
final class CdcFixture implements AutoCloseable {
  static final String NAME_PREFIX = "txmsg_cdc_test_";
  static final String LOG_DATABASES = "io.txmsg.cdc.CdcFixture#transportsAndLogDatabases";

  final TestDatabase kind;
  final DatabaseFixture db;
  final TxmsgStore store;
  final StoreTransactions tx;
  final String storeId = "cdc-" + UUID.randomUUID().toString().substring(0, 8);
  final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  final String slot = NAME_PREFIX + suffix;
  final String publication = NAME_PREFIX + suffix;
  final TestTransport.Open transport;
  final EmbeddedRocketMQ mq;
  final Map<String, List<InboundMessage>> delivered = new ConcurrentHashMap<>();
  final List<String> deliveryOrder = new CopyOnWriteArrayList<>();

  /** Topic → the consumer group {@link #consume} subscribed to it. */
  private final Map<String, String> groups = new ConcurrentHashMap<>();

  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** Every real transport × every enabled database with a log (MariaDB, PostgreSQL). */
  static Stream<Arguments> transportsAndLogDatabases() {
    return TestTransport.realWith(logDatabases());
  }

  static List<TestDatabase> logDatabases() {
    return TestDatabases.list().stream().filter(d -> d != TestDatabase.H2).toList();
  }

  CdcFixture(TestTransport transportKind, TestDatabase kind, EmbeddedRocketMQ mq) {
    this.kind = kind;
    this.mq = mq;
    this.db = kind.open();
    SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
    this.store = TxmsgStore.detect(db.dataSource(), "txmsg_");
    this.tx = new StoreTransactions(db.dataSource(), store);
    this.transport = transportKind.open();
  }

  /** A topic of this test, created on the broker. */
  String topic(TopicType type) {
    String topic = "cdc-" + type.name().toLowerCase() + "-" + suffix;
    mq.createTopic(topic, type);
    return topic;
  }

  /**
   * Subscribes a consumer group to {@code topic} that records every delivery (orderly for FIFO).
   */
  void consume(String topic, boolean fifo) {
    String group = "cdc-g-" + suffix + "-" + topic.hashCode();
    mq.createConsumerGroup(group, 5, Duration.ofMillis(200), Duration.ofMillis(500), fifo);
    // The rows are sent right after the subscription: the group must not start past them.
    mq.startGroupAtFirstMessage(group, topic);
    groups.put(topic, group);
    Subscription sub =
        transport
            .transport()
            .subscribe(
                new SubscriptionSpec(group, Map.of(topic, "*"), 2),
                m -> {
                  String id = m.properties().get(io.txmsg.api.Envelope.EVENT_ID);
                  delivered.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(m);
                  deliveryOrder.add(id);
                  return Verdict.ACK;
                });
    closeables.add(sub);
    mq.awaitSubscribed(group, topic, Duration.ofSeconds(30));
  }

  CdcSource source() {
    String user =
        System.getProperty(
            "txmsg.test." + kind.id() + ".user",
            kind == TestDatabase.MARIADB ? "root" : "postgres");
    String password = System.getProperty("txmsg.test." + kind.id() + ".password", "");
    return CdcSource.fromJdbcUrl(db.jdbcUrl(), user, password);
  }

  /** Test settings: this test's slot and publication, a short lease and backoff. */
  CdcRelaySettings settings() {
    return CdcRelaySettings.defaults()
        .withSlotName(slot)
        .withPublication(publication, true)
        .withLease(Duration.ofSeconds(3))
        .withHeartbeatInterval(Duration.ofMillis(300))
        .withBackoff(Duration.ofMillis(100), Duration.ofMillis(500));
  }

  CdcRelay.Builder relay(UnaryOperator<CdcRelaySettings> settings) {
    return CdcRelay.builder()
        .dataSource(db.dataSource())
        .storeId(storeId)
        .source(source())
        .transport(transport.transport())
        .settings(settings.apply(settings()));
  }

  /** Closes {@code c} with the fixture (before the transport and the database). */
  void closeLater(AutoCloseable c) {
    closeables.add(c);
  }

  /** Starts a relay and waits until its connector streams (inserts from then on are relayed). */
  CdcRelay started(CdcRelay relay) {
    closeables.add(relay);
    relay.start();
    await(
        "relay streaming", () -> relay.state() == CdcRelay.State.RELAYING, Duration.ofSeconds(60));
    return relay;
  }

  /** Inserts a CDC journal row of this store, committed on its own, as the producer will. */
  JournalRow insert(String topic, String aggregateId, long version, String group) throws Exception {
    return insert(topic, aggregateId, version, group, PublishMode.CDC, storeId);
  }

  JournalRow insert(
      String topic,
      String aggregateId,
      long version,
      String group,
      PublishMode mode,
      String storeId)
      throws Exception {
    JournalRow r = new JournalRow();
    String eventId = "e-" + UUID.randomUUID();
    byte[] payload =
        ("{\"order\":\"" + aggregateId + "\",\"v\":" + version + "}")
            .getBytes(StandardCharsets.UTF_8);
    r.setEventId(eventId);
    r.setAttemptId("a-" + UUID.randomUUID());
    r.setStoreId(storeId);
    r.setAggregateType("Order");
    r.setAggregateId(aggregateId);
    r.setAggregateVersion(version);
    r.setEventType("OrderPaid");
    r.setEventVersion(1);
    r.setDestination(topic);
    r.setTag("paid");
    r.setBusinessKey("order-" + aggregateId);
    r.setPayload(payload);
    r.setPayloadHash(
        PayloadHashes.compute(eventId, "OrderPaid", 1, "Order", aggregateId, version, payload));
    r.setContentType("application/json");
    r.setHeaders("{\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}");
    r.setCreatedAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    r.setPublishMode(mode);
    r.setMessageGroup(group);
    // Due to the reconciler in an hour: these tests run no reconciler, only the relay sends them.
    tx.run(
        c -> {
          new Journal(db.dataSource(), store).insert(c, r, Duration.ofHours(1).toMillis());
          return null;
        });
    return r;
  }

  JournalRow row(String eventId) throws Exception {
    return new Journal(db.dataSource(), store).find(eventId);
  }

  void awaitDelivered(List<JournalRow> rows, Duration timeout) {
    try {
      await(
          "delivery of " + rows.size() + " rows",
          () -> rows.stream().allMatch(r -> delivered.containsKey(r.getEventId())),
          timeout);
    } catch (AssertionError e) {
      // Say where each missing row stands: never sent (the relay) or sent and not delivered (the
      // consumer side), so a failure in CI can be read without a rerun.
      StringBuilder missing = new StringBuilder(e.getMessage()).append("; not delivered:");
      for (JournalRow r : rows) {
        if (!delivered.containsKey(r.getEventId())) {
          missing.append(' ').append(r.getEventId()).append('=').append(statusOf(r.getEventId()));
        }
      }
      missing.append("; delivered in order: ").append(deliveryOrder);
      groups.forEach(
          (topic, group) ->
              missing
                  .append("; queues of ")
                  .append(topic)
                  .append(": ")
                  .append(mq.describeQueues(topic, group)));
      throw new AssertionError(missing.toString(), e);
    }
  }

  private String statusOf(String eventId) {
    try {
      JournalRow row = row(eventId);
      return row == null ? "no row" : row.getStatus() + "/" + row.getBrokerMessageId();
    } catch (Exception e) {
      return "unreadable (" + e + ")";
    }
  }

  void awaitSent(List<JournalRow> rows, Duration timeout) {
    await(
        "SENT for " + rows.size() + " rows",
        () -> {
          try {
            for (JournalRow r : rows) {
              if (row(r.getEventId()).getStatus() != JournalStatus.SENT) {
                return false;
              }
            }
            return true;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        },
        timeout);
  }

  static void await(String what, BooleanSupplier condition, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }

  /** PostgreSQL: waits until no walsender reads this test's slot (a closed relay's may linger). */
  void awaitSlotInactive() {
    await(
        "slot " + slot + " inactive",
        () -> {
          try {
            return "f"
                .equals(
                    adminQuery(
                        "SELECT active FROM pg_replication_slots WHERE slot_name = '"
                            + slot
                            + "'"));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        },
        Duration.ofSeconds(30));
  }

  /** Runs a statement as the database's admin (the test account). */
  void admin(String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute(sql);
    }
    // No pool eviction after a column change: the store's reads name their columns, so a pooled
    // connection's server-prepared statements stay valid (ColumnListsTest); this class's tests
    // that alter the journal while relaying check that too.
  }

  String adminQuery(String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  @Override
  public void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        // keep closing the rest
      }
    }
    try {
      if (kind == TestDatabase.POSTGRESQL) {
        dropSlotsAndPublications(db.jdbcUrl(), slot);
      }
    } finally {
      transport.close();
      db.close();
    }
  }

  /**
   * Drops this test's slot and publication and what killed runs left (named {@value
   * #NAME_PREFIX}…).
   */
  static void dropSlotsAndPublications(String jdbcUrl, String slot) throws Exception {
    ReplicationSlots.dropTestSlotsAndPublications(jdbcUrl, NAME_PREFIX, slot);
  }
}
