package io.txmsg.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.Envelope;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.cdc.CdcRelay;
import io.txmsg.cdc.CdcRelaySettings;
import io.txmsg.cdc.CdcSource;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Transports;
import io.txmsg.transport.Verdict;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;

/**
 * The CDC section's pieces on one transport: the txmsg producer in {@code deliveryMode(CDC)} (its
 * own NORMAL topic, store id and table prefix), the relay that sends its rows ({@link CdcRelay},
 * started and stopped by the section), an OUTBOX producer for the latency comparison (its commit
 * time taken in {@link ProducerInterceptor#beforeSend}, right after the local commit), a consumer
 * on the same transport that reports each delivery, and the raw client's plain send of the same
 * envelope (the baseline of the relay's drain rate).
 *
 * <p>The relay's PostgreSQL slot and publication are named {@value #NAME_PREFIX}…, so that {@link
 * io.txmsg.testkit.db.ReplicationSlots} drops them (and those of killed runs) at the end.
 */
final class CdcVariant implements AutoCloseable {
  /** Slot and publication names of the benchmark's relays. */
  static final String NAME_PREFIX = "txmsg_bench_cdc_";

  /**
   * The CDC rows' fallback to the reconciler: far beyond any wait of the section, so that every row
   * the section counts is sent by the relay (the backlog waits while the relay is stopped).
   */
  static final Duration FALLBACK = Duration.ofMinutes(30);

  final boolean grpc;
  final String key;
  final String name;
  final String prefix;
  final String storeId;
  final String topic;
  final String slot;
  final String publication;
  final TxProducer producer;
  final SimpleMeterRegistry metrics = new SimpleMeterRegistry();

  /** The OUTBOX producer of the latency comparison (own topic, store id and prefix). */
  final String outboxKey;

  final String outboxName;
  final String outboxPrefix;
  final String outboxTopic;
  final TxProducer outbox;
  final SimpleMeterRegistry outboxMetrics = new SimpleMeterRegistry();

  private final BenchMain b;
  private final BrokerConnection connection;
  private final Transport transport;
  private final CdcSource source;
  private Subscription cdcSubscription;
  private Subscription outboxSubscription;
  private CdcRelay relay;
  private final RawSender raw;

  /** Where a delivery or an OUTBOX commit is reported; null between latency rounds. */
  volatile LatencyPairs pairs;

  /** The plain send of the raw client on this transport. */
  private interface RawSender extends AutoCloseable {
    void send(String id) throws Exception;
  }

  CdcVariant(BenchMain b, boolean grpc) throws Exception {
    this.b = b;
    this.grpc = grpc;
    String t = grpc ? "" : "r";
    this.key = "cdc" + t;
    this.name = "(" + key + ") txmsg CDC, " + (grpc ? "gRPC" : "remoting");
    this.outboxKey = "lo" + t;
    this.outboxName = "(" + outboxKey + ") txmsg OUTBOX, " + (grpc ? "gRPC" : "remoting");
    this.prefix = grpc ? "txc_" : "txcr_";
    this.outboxPrefix = grpc ? "txlo_" : "txlor_";
    this.storeId = "bench-cdc" + (grpc ? "" : "-r");
    this.connection = grpc ? b.connection() : b.remotingConnection();
    this.topic = topic("bench-cdc-" + t);
    this.outboxTopic = topic("bench-cdc-lo-" + t);
    this.slot = NAME_PREFIX + b.run + (grpc ? "_g" : "_r");
    this.publication = slot;
    this.source = CdcSource.fromJdbcUrl(b.fixture.jdbcUrl(), b.pools.user, b.pools.password);
    this.producer =
        TxProducer.builder()
            .dataSource(b.ds)
            .settings(
                new TxProducerSettings()
                    .connection(connection)
                    .topics(topic)
                    .deliveryMode(DeliveryMode.CDC)
                    .cdcFallbackAfter(FALLBACK)
                    .storeId(storeId)
                    .tablePrefix(prefix)
                    .autoCreateSchema(true)) // reconciler on, as in production
            .meterRegistry(metrics)
            .build();
    this.outbox =
        TxProducer.builder()
            .dataSource(b.ds)
            .settings(
                new TxProducerSettings()
                    .connection(connection)
                    .topics(outboxTopic)
                    .deliveryMode(DeliveryMode.OUTBOX)
                    .storeId(storeId + "-lo")
                    .tablePrefix(outboxPrefix)
                    .autoCreateSchema(true))
            .meterRegistry(outboxMetrics)
            .interceptor(
                new ProducerInterceptor() {
                  @Override
                  public boolean beforeSend(TxMessage message, String attemptId) {
                    LatencyPairs p = pairs;
                    if (p != null) {
                      p.committed(message.eventId(), System.nanoTime());
                    }
                    return true;
                  }
                })
            .build();
    this.transport = Transports.open(connection);
    this.raw = grpc ? grpcSender() : remotingSender();
  }

  private String topic(String prefix) {
    String t = prefix + b.run;
    b.mq.createTopic(t, TopicType.NORMAL);
    return t;
  }

  /** The relay settings of the section: production defaults, this run's slot and publication. */
  private CdcRelaySettings settings() {
    return CdcRelaySettings.defaults().withSlotName(slot).withPublication(publication, true);
  }

  /**
   * Starts a new relay instance (a closed one cannot start again) and waits until it streams.
   * Returns the seconds from {@code start()} to RELAYING.
   */
  double startRelay() throws Exception {
    long t0 = System.nanoTime();
    startRelayAsync();
    long until = t0 + Duration.ofSeconds(120).toNanos();
    while (relay.state() != CdcRelay.State.RELAYING) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException(
            name + ": relay not RELAYING after 120 s: " + relay.state());
      }
      Thread.sleep(10);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Starts a new relay instance without waiting for it to stream ({@link #relayState()}). */
  void startRelayAsync() {
    relay =
        CdcRelay.builder()
            .dataSource(b.ds)
            .storeId(storeId)
            .tablePrefix(prefix)
            .source(source)
            .connection(connection)
            .topics(Set.of(topic))
            .settings(settings())
            .build();
    relay.start();
  }

  CdcRelay.State relayState() {
    return relay == null ? CdcRelay.State.CLOSED : relay.state();
  }

  /** Closes the running relay (SENT and offsets written, lease released). */
  void stopRelay() {
    if (relay != null) {
      relay.close();
      relay = null;
    }
  }

  /** The CDC call: the business row inside {@code execute}; nothing is sent on this thread. */
  void execute(String id) {
    producer
        .template()
        .execute(
            Messages.txMessage(topic, id),
            ctx -> {
              BenchMain.insertPayment(ctx.connection(), id);
              return null;
            });
  }

  /** The CDC call of the latency rounds: the commit time is when {@code execute} returned. */
  void executeTimed(String id) {
    execute(id);
    LatencyPairs p = pairs;
    if (p != null) {
      p.committed(id, System.nanoTime());
    }
  }

  /** The OUTBOX call of the latency rounds (commit time from the interceptor). */
  void executeOutbox(String id) {
    outbox
        .template()
        .execute(
            Messages.txMessage(outboxTopic, id),
            ctx -> {
              BenchMain.insertPayment(ctx.connection(), id);
              return null;
            });
  }

  /** One plain send of txmsg's envelope by the raw client, synchronous, as the relay sends. */
  void rawSend(String id) throws Exception {
    raw.send(id);
  }

  /** Consumers of both topics on this transport (8 threads each) reporting to {@link #pairs}. */
  void subscribe() {
    cdcSubscription = subscribe(topic);
    outboxSubscription = subscribe(outboxTopic);
  }

  private Subscription subscribe(String t) {
    String group = "bench-g-" + t;
    b.mq.createConsumerGroup(group, 16, Duration.ofSeconds(1), Duration.ofSeconds(5));
    Subscription s =
        transport.subscribe(
            new SubscriptionSpec(group, Map.of(t, "*"), 8),
            m -> {
              LatencyPairs p = pairs;
              if (p != null) {
                p.delivered(m.properties().get(Envelope.EVENT_ID), System.nanoTime());
              }
              return Verdict.ACK;
            });
    b.mq.awaitSubscribed(group, t, Duration.ofSeconds(60));
    return s;
  }

  private RawSender grpcSender() throws Exception {
    Messages messages = new Messages(b.provider);
    Producer p =
        b.provider
            .newProducerBuilder()
            .setClientConfiguration(b.clientConfig)
            .setTopics(topic)
            .build();
    return new RawSender() {
      @Override
      public void send(String id) throws Exception {
        p.send(messages.envelope(topic, id, true)); // a receipt on SEND_OK, throws otherwise
      }

      @Override
      public void close() throws Exception {
        p.close();
      }
    };
  }

  private RawSender remotingSender() throws Exception {
    Messages messages = new Messages(b.provider);
    DefaultMQProducer p = new DefaultMQProducer("bench-cdc-raw-r-" + b.run);
    p.setNamesrvAddr(b.mq.namesrvAddress());
    p.setUseTLS(false); // the client's default, stated: no variant of the benchmark uses TLS
    p.start();
    return new RawSender() {
      @Override
      public void send(String id) throws Exception {
        var env = messages.envelope(topic, id, true);
        org.apache.rocketmq.common.message.Message msg =
            new org.apache.rocketmq.common.message.Message(topic, BenchMain.PAYLOAD);
        msg.setKeys(env.getKeys());
        env.getProperties().forEach(msg::putUserProperty);
        SendResult r = p.send(msg); // synchronous
        if (r.getSendStatus() != SendStatus.SEND_OK) {
          throw new IllegalStateException("send " + r.getSendStatus());
        }
      }

      @Override
      public void close() {
        p.shutdown();
      }
    };
  }

  @Override
  public void close() {
    BenchSupport.quietly(this::stopRelay);
    for (AutoCloseable c :
        new AutoCloseable[] {
          cdcSubscription, outboxSubscription, raw, producer, outbox, transport::close
        }) {
      if (c != null) {
        BenchSupport.quietly(c::close);
      }
    }
  }
}
