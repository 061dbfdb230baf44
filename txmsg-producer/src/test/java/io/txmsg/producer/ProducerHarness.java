package io.txmsg.producer;

import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.Envelope;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TransactionalBusinessAction;
import io.txmsg.api.TxMessage;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One database, one topic, a started TxProducer on a transport, and an independent observer
 * consumer group on the same transport that records every delivery (by eventId, with the attempt id
 * that sent it).
 */
final class ProducerHarness implements AutoCloseable {
  final DatabaseFixture db;
  final String topic;

  /**
   * Unique per harness: over remoting the producer group is per store, and two harnesses of one
   * store id alive at once would answer each other's check-backs from the wrong database.
   */
  final String storeId;

  final TxProducer txmsg;
  final Journal journal;
  final TestTransport.Open transport;
  final SwitchableInterceptor interceptor = new SwitchableInterceptor();
  final Map<String, List<String>> deliveries = new ConcurrentHashMap<>();

  /** Check-back answers of this producer, by "RESOLUTION/reason". */
  final Map<String, java.util.concurrent.atomic.AtomicInteger> checkbacks =
      new ConcurrentHashMap<>();

  /** Rows this producer took over from hung instances of its store (txmsg.instance.takeover). */
  final java.util.concurrent.atomic.AtomicInteger takenOver =
      new java.util.concurrent.atomic.AtomicInteger();

  /** The settings the producer was built with (a second instance of the store can copy them). */
  final TxProducerSettings settings;

  private final Subscription observer;

  /** gRPC on the given embedded cluster. */
  ProducerHarness(
      TestDatabase kind,
      EmbeddedRocketMQ mq,
      Consumer<TxProducerSettings> tweak,
      CheckbackResolver... resolvers)
      throws Exception {
    this(kind, TestTransport.grpcOn(mq), tweak, resolvers);
  }

  ProducerHarness(
      TestDatabase kind,
      TestTransport.Open transport,
      Consumer<TxProducerSettings> tweak,
      CheckbackResolver... resolvers)
      throws Exception {
    this(kind, transport, TopicType.TRANSACTION, t -> t, tweak, resolvers);
  }

  /**
   * A harness whose topic has {@code topicType}, whose producer sends through {@code wrap} of the
   * transport (fault injection), observed on the unwrapped transport.
   */
  ProducerHarness(
      TestDatabase kind,
      TestTransport.Open transport,
      TopicType topicType,
      java.util.function.UnaryOperator<io.txmsg.transport.Transport> wrap,
      Consumer<TxProducerSettings> tweak,
      CheckbackResolver... resolvers)
      throws Exception {
    this.transport = transport;
    db = kind.open();
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE payment (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL)");
    }
    topic = "pay-" + UUID.randomUUID().toString().substring(0, 8);
    storeId = "store-" + kind.id() + "-" + topic.substring(4);
    transport.createTopic(topic, topicType);
    TxProducerSettings settings =
        new TxProducerSettings()
            .topics(topic)
            .storeId(storeId)
            .autoCreateSchema(true)
            .republishAfter(Duration.ofSeconds(60))
            .leaseDuration(Duration.ofSeconds(10))
            .fenceAfterChecks(2);
    tweak.accept(settings);
    this.settings = settings.copy();
    TxProducer.Builder b =
        TxProducer.builder()
            .dataSource(db.dataSource())
            .settings(settings)
            .transport(wrap.apply(transport.transport()))
            .interceptor(interceptor)
            .metrics(
                new ProducerMetrics() {
                  @Override
                  public void checkback(String resolution, String reason, long nanos) {
                    checkbacks
                        .computeIfAbsent(
                            resolution + "/" + reason,
                            k -> new java.util.concurrent.atomic.AtomicInteger())
                        .incrementAndGet();
                  }

                  @Override
                  public void instanceTakeover(int rows) {
                    takenOver.addAndGet(rows);
                  }
                });
    for (CheckbackResolver r : resolvers) {
      b.resolver(r);
    }
    txmsg = b.build();
    journal =
        new Journal(db.dataSource(), TxmsgStore.detect(db.dataSource(), settings.tablePrefix()));
    observer =
        transport
            .transport()
            .subscribe(
                new SubscriptionSpec("observer-" + topic, Map.of(topic, "*"), 4),
                m -> {
                  String eventId = m.properties().get(Envelope.EVENT_ID);
                  deliveries
                      .computeIfAbsent(eventId, k -> new CopyOnWriteArrayList<>())
                      .add(m.properties().get(Envelope.ATTEMPT_ID));
                  return Verdict.ACK;
                });
  }

  TxMessage message(String id, int amount) {
    return TxMessage.builder()
        .eventId("evt-" + id)
        .topic(topic)
        .eventType("PaymentSucceeded")
        .aggregate("Payment", id, 1)
        .businessKey("order-" + id)
        .payload(
            ("{\"id\":\"" + id + "\",\"amount\":" + amount + "}").getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /** The business action of most tests: insert one payment row, return null. */
  static TransactionalBusinessAction<Object> pays(String id, int amount) {
    return ctx -> {
      insertPayment(ctx.connection(), id, amount);
      return null;
    };
  }

  static void insertPayment(Connection c, String id, int amount) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO payment (id, amount) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, amount);
      ps.executeUpdate();
    }
  }

  boolean paymentExists(String id) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM payment WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1) == 1;
      }
    }
  }

  JournalRow journal(String eventId) throws Exception {
    return journal.find(eventId);
  }

  String attemptState(String attemptId) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT state FROM txmsg_attempt WHERE attempt_id = ?")) {
      ps.setString(1, attemptId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  List<String> attemptStatesOf(String eventId) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT state FROM txmsg_attempt WHERE event_id = ? ORDER BY created_at")) {
      ps.setString(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        List<String> out = new java.util.ArrayList<>();
        while (rs.next()) {
          out.add(rs.getString(1));
        }
        return out;
      }
    }
  }

  /** How many check-backs this producer answered with {@code resolution} (any reason). */
  int checkbacksAnswered(String resolution) {
    return checkbacks.entrySet().stream()
        .filter(e -> e.getKey().startsWith(resolution + "/"))
        .mapToInt(e -> e.getValue().get())
        .sum();
  }

  int deliveryCount(String eventId) {
    List<String> d = deliveries.get(eventId);
    return d == null ? 0 : d.size();
  }

  /** Waits until the condition holds or the time is up; returns whether it held. */
  static boolean await(Duration within, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(100);
    }
    return condition.getAsBoolean();
  }

  JournalStatus journalStatus(String eventId) {
    try {
      JournalRow r = journal(eventId);
      return r == null ? null : r.getStatus();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws Exception {
    try {
      observer.close();
    } finally {
      try {
        txmsg.close();
      } finally {
        try {
          transport.close();
        } finally {
          db.close();
        }
      }
    }
  }

  /** Per-test fault injection behind one interceptor instance. */
  static final class SwitchableInterceptor implements ProducerInterceptor {
    volatile ProducerInterceptor delegate = new ProducerInterceptor() {};

    @Override
    public void afterHalfMessageSent(TxMessage message, String attemptId) {
      delegate.afterHalfMessageSent(message, attemptId);
    }

    @Override
    public void beforeAction(TxMessage message, String attemptId) {
      delegate.beforeAction(message, attemptId);
    }

    @Override
    public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
      return delegate.beforeHalfMessageCommit(message, attemptId);
    }

    @Override
    public boolean beforeSend(TxMessage message, String attemptId) {
      return delegate.beforeSend(message, attemptId);
    }
  }
}
