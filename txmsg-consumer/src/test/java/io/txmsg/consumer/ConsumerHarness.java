package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.Envelope;
import io.txmsg.api.PayloadHashes;
import io.txmsg.api.Resolution;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.Commands;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.consume.ConsumeLogRow;
import io.txmsg.store.consume.ConsumeStatus;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.FaultInjectingDataSource;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One database with a business table, one NORMAL topic, a raw producer that sends hand-made
 * envelopes (duplicates, conflicts, malformed ones), and the consumers a test starts. Every outcome
 * the consumers report is counted per group.
 */
final class ConsumerHarness implements AutoCloseable {
  static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  /** gRPC and remoting × every enabled database. */
  static final String REAL = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  /**
   * How long a test waits for deliveries to reach a state: an upper bound, never a measurement (a
   * passing test returns as soon as the state holds). 60 s, not 30: in CI, with three classes
   * running beside it, a state that takes a few seconds alone (a first delivery and its park; a
   * redelivery after the group's 10 s retry wait) has taken more than 30 s. ReplayTest and
   * FailedStatementsTest each timed out once at 30 s in CI on 2026-12-05, with no outcome reported
   * that was wrong; neither reproduced locally (two runs of the module, one of the profile).
   */
  static final Duration DELIVERY_WAIT = Duration.ofSeconds(60);

  final TestTransport.Open transport;
  final DatabaseFixture db;
  final FaultInjectingDataSource dataSource;
  final String topic = "t-" + UUID.randomUUID().toString().substring(0, 8);
  final TxmsgStore store;
  final ConsumeLog consumeLog;
  final DeadLetters deadLetters;
  final Commands commands;
  final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
  final Map<String, List<ConsumeOutcome>> byEvent = new ConcurrentHashMap<>();

  /**
   * The same outcomes labelled with the group's name (its part before the topic) and the seconds
   * since this harness started, for timeout messages.
   */
  final Map<String, List<String>> labelledByEvent = new ConcurrentHashMap<>();

  private final long startNanos = System.nanoTime();

  volatile Predicate<String> dropAck = id -> false;
  private final ProducerChannel producer;
  private final List<TxConsumers> consumers = new ArrayList<>();

  ConsumerHarness(TestTransport kind, TestDatabase database) throws Exception {
    transport = kind.open();
    db = database.open();
    dataSource = new FaultInjectingDataSource(db.dataSource());
    SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
    store = TxmsgStore.detect(db.dataSource(), "txmsg_");
    consumeLog = new ConsumeLog(db.dataSource(), store);
    deadLetters = new DeadLetters(db.dataSource(), store);
    commands = new Commands(db.dataSource(), store);
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      // No unique key on purpose: applying an event twice leaves two rows.
      s.execute(
          "CREATE TABLE points_credit (consumer_group VARCHAR(64) NOT NULL,"
              + " event_id VARCHAR(64) NOT NULL, account VARCHAR(64) NOT NULL, amount INT NOT NULL)");
      s.execute(
          "CREATE TABLE projection (aggregate_id VARCHAR(64) PRIMARY KEY, version BIGINT NOT NULL,"
              + " applied VARCHAR(200) NOT NULL)");
    }
    transport.createTopic(topic, TopicType.NORMAL);
    producer =
        transport
            .transport()
            .openProducer(new ProducerSpec("test-sender", Set.of(topic), v -> Resolution.UNKNOWN));
  }

  /** A consumer group on the broker with a short retry policy (attempts = retries + 1). */
  String group(String name, int retryMaxTimes) {
    String g = name + "-" + topic;
    transport.createGroup(g, retryMaxTimes);
    return g;
  }

  TxConsumerSettings settings(String... groups) {
    TxConsumerSettings s =
        new TxConsumerSettings()
            .consumptionThreads(4)
            .retryPolicyWait(Duration.ofSeconds(10))
            .commandPollInterval(Duration.ofMillis(100))
            .commandBackoff(Duration.ofMillis(100), Duration.ofMillis(500))
            .dlqDrain(true, Duration.ofSeconds(1));
    for (String g : groups) {
      s.group(ConsumerGroupConfig.of(g).subscribe(topic));
    }
    return s;
  }

  TxConsumers.Builder consumers(TxConsumerSettings settings) {
    return TxConsumers.builder()
        .transport(transport.transport())
        .dataSource(dataSource)
        .settings(settings)
        .listener(
            (group, type, id, outcome) -> {
              outcomes
                  .computeIfAbsent(group + ":" + outcome, k -> new AtomicInteger())
                  .incrementAndGet();
              byEvent
                  .computeIfAbsent(id, k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                  .add(outcome);
              labelledByEvent
                  .computeIfAbsent(id, k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                  .add(
                      group.replace("-" + topic, "")
                          + ":"
                          + outcome
                          + String.format(
                              java.util.Locale.ROOT,
                              "@%.1fs",
                              (System.nanoTime() - startNanos) / 1e9));
            })
        .interceptor(
            new ConsumerInterceptor() {
              @Override
              public boolean beforeAck(String group, String eventId) {
                return !dropAck.test(eventId);
              }
            });
  }

  TxConsumers start(TxConsumers.Builder b) throws Exception {
    TxConsumers c = b.build();
    consumers.add(c);
    return c;
  }

  int outcomes(String eventId, ConsumeOutcome o) {
    return (int) byEvent.getOrDefault(eventId, List.of()).stream().filter(o::equals).count();
  }

  int outcome(String group, ConsumeOutcome o) {
    AtomicInteger n = outcomes.get(group + ":" + o);
    return n == null ? 0 : n.get();
  }

  /** The points handler: one credit row per application. */
  static EventHandler<Paid> credits() {
    return (event, ctx) -> credit(ctx.connection(), ctx.consumerGroup(), ctx.eventId(), event);
  }

  static void credit(Connection c, String group, String eventId, Paid event) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO points_credit (consumer_group, event_id, account, amount) VALUES (?,?,?,?)")) {
      ps.setString(1, group);
      ps.setString(2, eventId);
      ps.setString(3, event.account());
      ps.setInt(4, event.amount());
      ps.executeUpdate();
    }
  }

  /** The payload of the tests' PaymentSucceeded events. */
  record Paid(String account, int amount) {}

  static byte[] paid(String account, int amount) {
    return ("{\"account\":\"" + account + "\",\"amount\":" + amount + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Envelope properties exactly as the producer writes them. */
  static Map<String, String> envelope(
      String eventId, String type, String aggType, String aggId, long aggVersion, byte[] body) {
    Map<String, String> p = new java.util.HashMap<>();
    p.put(Envelope.EVENT_ID, eventId);
    p.put(Envelope.ATTEMPT_ID, UUID.randomUUID().toString());
    p.put(Envelope.STORE_ID, "test");
    p.put(Envelope.EVENT_TYPE, type);
    p.put(Envelope.EVENT_VERSION, "1");
    p.put(Envelope.AGGREGATE_TYPE, aggType);
    p.put(Envelope.AGGREGATE_ID, aggId);
    p.put(Envelope.AGGREGATE_VERSION, Long.toString(aggVersion));
    p.put(Envelope.BUSINESS_KEY, "order-" + aggId);
    p.put(
        Envelope.PAYLOAD_HASH,
        PayloadHashes.compute(eventId, type, 1, aggType, aggId, aggVersion, body));
    p.put(Envelope.ORIGIN_TIME, Long.toString(System.currentTimeMillis()));
    p.put(Envelope.HEADER_PREFIX + "trace", "t-" + eventId);
    return p;
  }

  void send(Map<String, String> properties, byte[] body) throws Exception {
    String id = properties.get(Envelope.EVENT_ID);
    producer.send(
        new OutboundMessage(topic, null, id == null ? List.of() : List.of(id), properties, body));
  }

  /** Sends a well-formed PaymentSucceeded event for aggregate Payment/aggId. */
  void sendPaid(String eventId, String aggId, long version, int amount) throws Exception {
    byte[] body = paid("acct-" + aggId, amount);
    send(envelope(eventId, "PaymentSucceeded", "Payment", aggId, version, body), body);
  }

  int credits(String group, String eventId) throws Exception {
    return count(
        "SELECT COUNT(*) FROM points_credit WHERE consumer_group = ? AND event_id = ?",
        group,
        eventId);
  }

  int count(String sql, String... args) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setString(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  ConsumeLogRow consumeLog(String group, String eventId) throws Exception {
    return consumeLog.find(group, eventId);
  }

  List<DeadLetterRow> deadLetters(String group, String eventId) throws Exception {
    return deadLetters.findByEvent(group, eventId);
  }

  static void await(String what, Duration timeout, BooleanSupplier condition) throws Exception {
    await(() -> what, timeout, condition);
  }

  /** Waits; on timeout the message is {@code what} as it reads then (e.g. outcomes so far). */
  static void await(Supplier<String> what, Duration timeout, BooleanSupplier condition)
      throws Exception {
    long until = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what.get());
      }
      Thread.sleep(50);
    }
  }

  /**
   * Waits for a database condition (exceptions count as "not yet"; the last one is in the timeout
   * message).
   */
  static void awaitDb(String what, Duration timeout, CheckedBoolean condition) throws Exception {
    awaitDb(() -> what, timeout, condition);
  }

  /** Like {@link #awaitDb(String, Duration, CheckedBoolean)}; {@code what} is read on timeout. */
  static void awaitDb(Supplier<String> what, Duration timeout, CheckedBoolean condition)
      throws Exception {
    Exception[] last = new Exception[1];
    await(
        () -> what.get() + (last[0] == null ? "" : " (last query failure: " + last[0] + ")"),
        timeout,
        () -> {
          try {
            return condition.get();
          } catch (Exception e) {
            last[0] = e;
            return false;
          }
        });
  }

  /** Every outcome reported so far for these events, for timeout messages. */
  String outcomesOf(String... eventIds) {
    StringBuilder s = new StringBuilder();
    for (String id : eventIds) {
      s.append(id).append('=').append(labelledByEvent.getOrDefault(id, List.of())).append(' ');
    }
    return s.toString().strip();
  }

  @FunctionalInterface
  interface CheckedBoolean {
    boolean get() throws Exception;
  }

  /** Nothing more happens for this long (used before asserting "still exactly once"). */
  static void quiet(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis());
  }

  void assertAppliedOnce(String group, String eventId) throws Exception {
    assertThat(credits(group, eventId)).as("credits of %s in %s", eventId, group).isEqualTo(1);
    assertThat(consumeLog(group, eventId).getStatus()).isEqualTo(ConsumeStatus.SUCCESS);
  }

  @Override
  public void close() throws Exception {
    for (TxConsumers c : consumers) {
      c.close();
    }
    producer.close();
    transport.close();
    db.close();
  }
}
