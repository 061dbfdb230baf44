package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.REAL;
import static io.txmsg.consumer.ConsumerHarness.await;
import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;

import brave.Tracing;
import brave.baggage.BaggageField;
import brave.baggage.BaggagePropagation;
import brave.baggage.BaggagePropagationConfig.SingleBaggageField;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.sampler.Sampler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.BaggageInScope;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.brave.bridge.W3CPropagation;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxResult;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.store.HeadersCodec;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One trace from a service call (no HTTP) through the broker into the handler: Brave with W3C
 * propagation behind micrometer-tracing's bridge, on the embedded broker, over both transports. The
 * service call's span is the root; {@code txmsg.execute} its child; {@code txmsg.consume} (and a
 * span the handler opens) continue the same trace, also when the event reaches the consumer through
 * a check-back or a republish by the reconciler on another thread.
 */
class TracingTest {
  private final List<MutableSpan> spans = new CopyOnWriteArrayList<>();
  private Tracing tracing;
  private Tracer tracer;
  private ObservationRegistry registry;

  /** What the handler saw, per eventId. */
  private final Map<String, Seen> seen = new ConcurrentHashMap<>();

  private record Seen(Map<String, String> headers, String traceId, String baggage) {}

  @BeforeEach
  void tracing() {
    BraveBaggageManager baggage = new BraveBaggageManager(List.of("tenant"));
    ThreadLocalCurrentTraceContext current = ThreadLocalCurrentTraceContext.newBuilder().build();
    tracing =
        Tracing.newBuilder()
            .localServiceName("payments")
            .currentTraceContext(current)
            // As Spring Boot wires W3C with a remote baggage field: the W3C "baggage" header.
            .propagationFactory(
                BaggagePropagation.newFactoryBuilder(new W3CPropagation(baggage, List.of()))
                    .add(SingleBaggageField.remote(BaggageField.create("tenant")))
                    .build())
            .traceId128Bit(true) // W3C trace ids are 128 bits
            .sampler(Sampler.ALWAYS_SAMPLE)
            .addSpanHandler(
                new SpanHandler() {
                  @Override
                  public boolean end(
                      brave.propagation.TraceContext context, MutableSpan span, Cause cause) {
                    spans.add(span);
                    return true;
                  }
                })
            .build();
    tracer = new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(current), baggage);
    BravePropagator propagator = new BravePropagator(tracing);
    registry = ObservationRegistry.create();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
  }

  @AfterEach
  void close() {
    tracing.close();
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void theHandlerSpanContinuesTheServiceCallsTrace(TestTransport transport, TestDatabase kind)
      throws Exception {
    run(
        transport,
        kind,
        TopicType.TRANSACTION,
        s -> {},
        new ProducerInterceptor() {},
        true,
        env -> {
          String id = "direct-" + env.suffix;
          Span service = serviceCall(env, id, Map.of("channel", "web"));
          env.awaitHandled(id);

          MutableSpan execute = span(service.context().traceId(), "execute");
          assertThat(execute.parentId()).isEqualTo(service.context().spanId());
          assertThat(execute.kind()).isEqualTo(brave.Span.Kind.PRODUCER);
          assertThat(execute.tags())
              .containsEntry("txmsg.topic", env.topic)
              .containsEntry("txmsg.event_type", "PaymentSucceeded")
              .containsEntry("txmsg.mode", "half_message")
              .containsEntry("txmsg.outcome", "committed")
              .containsEntry("txmsg.event_id", id);
          assertConsumedAsChildOf(env, id, service, execute);
          // Stored with the row, beside the application's own header.
          Map<String, String> stored = HeadersCodec.decode(env.journal(id).getHeaders());
          assertThat(stored)
              .containsEntry("channel", "web")
              .containsKey("traceparent")
              .containsEntry("baggage", "tenant=acme");
          assertThat(seen.get(id).headers()).containsEntry("channel", "web");
          assertThat(seen.get(id).baggage())
              .as("W3C baggage reaches the handler")
              .isEqualTo("acme");

          // A client retry of the same eventId from another trace: the trace headers are not part
          // of the payload hash, so it is an idempotent retry, not a conflict.
          Observation retry = Observation.start("retry", registry);
          TxResult<Void> again;
          try (Observation.Scope s = retry.openScope()) {
            again = env.producer.template().execute(message(env.topic, id, Map.of()), ctx -> null);
          } finally {
            retry.stop();
          }
          assertThat(again.outcome()).isEqualTo(TxResult.Outcome.ALREADY_COMMITTED);
          Thread.sleep(1500);
          assertThat(env.handled(id)).as("applied once").isEqualTo(1);
        });
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aRepublishByTheReconcilerContinuesTheSameTrace(TestTransport transport, TestDatabase kind)
      throws Exception {
    run(
        transport,
        kind,
        TopicType.NORMAL,
        s ->
            s.deliveryMode(DeliveryMode.OUTBOX)
                .publishAfter(Duration.ofMillis(500))
                .reconcileInterval(Duration.ofMillis(200)),
        new ProducerInterceptor() {
          @Override
          public boolean beforeSend(TxMessage message, String attemptId) {
            return false; // no immediate send: the reconciler republishes the row
          }
        },
        true,
        env -> {
          String id = "republished-" + env.suffix;
          Span service = serviceCall(env, id, Map.of());
          env.awaitHandled(id);

          String traceId = service.context().traceId();
          MutableSpan execute = span(traceId, "execute");
          assertThat(execute.tags()).containsEntry("txmsg.mode", "outbox");
          MutableSpan republish = span(traceId, "publish");
          assertThat(republish.tags())
              .containsEntry("txmsg.kind", "republish")
              .containsEntry("txmsg.outcome", "sent");
          assertThat(republish.parentId()).isEqualTo(execute.id());
          assertConsumedAsChildOf(env, id, service, execute);
        });
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aDeliveryThroughTheCheckbackContinuesTheSameTrace(TestTransport transport, TestDatabase kind)
      throws Exception {
    run(
        transport,
        kind,
        TopicType.TRANSACTION,
        s -> {},
        new ProducerInterceptor() {
          @Override
          public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
            return false; // the broker's check-back commits the half message
          }
        },
        true,
        env -> {
          String id = "checked-" + env.suffix;
          Span service = serviceCall(env, id, Map.of());
          env.awaitHandled(id);

          String traceId = service.context().traceId();
          MutableSpan execute = span(traceId, "execute");
          MutableSpan checkback = span(traceId, "checkback");
          assertThat(checkback.parentId()).isEqualTo(execute.id());
          assertThat(checkback.tags()).containsEntry("txmsg.outcome", "commit");
          assertConsumedAsChildOf(env, id, service, execute);
        });
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aReplayOfAParkedEventContinuesTheSameTrace(TestTransport transport, TestDatabase kind)
      throws Exception {
    run(
        transport,
        kind,
        TopicType.TRANSACTION,
        s -> {},
        new ProducerInterceptor() {},
        true,
        env -> {
          String id = "parked-" + env.suffix;
          env.failOnce.add(id);
          Span service = serviceCall(env, id, Map.of());
          String traceId = service.context().traceId();
          MutableSpan execute = span(traceId, "execute");
          await(
              "parked",
              DELIVERY,
              () ->
                  consume(traceId, "false")
                      .filter(c -> "parked".equals(c.tag("txmsg.outcome")))
                      .isPresent());

          // The dead letter keeps the message properties, the trace headers among them.
          ReplayResult r = env.consumers.replay(env.group, id, "replay-" + env.suffix);
          assertThat(r.status()).isEqualTo(ReplayResult.Status.REPLAYED);
          await("replay span", DELIVERY, () -> consume(traceId, "true").isPresent());
          MutableSpan replayed = consume(traceId, "true").orElseThrow();
          assertThat(replayed.parentId()).isEqualTo(execute.id());
          assertThat(replayed.tags())
              .containsEntry("txmsg.outcome", "applied")
              .containsEntry("txmsg.group", env.group);
          assertThat(seen.get(id).traceId()).isEqualTo(traceId);
        });
  }

  private Optional<MutableSpan> consume(String traceId, String replay) {
    return spans.stream()
        .filter(
            s ->
                s.traceId().equals(traceId)
                    && s.name() != null
                    && s.name().endsWith("consume")
                    && replay.equals(s.tag("txmsg.replay")))
        .findFirst();
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void withoutARegistryNothingIsAddedToTheHeaders(TestTransport transport, TestDatabase kind)
      throws Exception {
    run(
        transport,
        kind,
        TopicType.TRANSACTION,
        s -> {},
        new ProducerInterceptor() {},
        false,
        env -> {
          String id = "untraced-" + env.suffix;
          // A trace is current in the caller, but txmsg has no registry: it must not touch it.
          Span service = serviceCall(env, id, Map.of("channel", "web"));
          env.awaitHandled(id);

          assertThat(HeadersCodec.decode(env.journal(id).getHeaders()))
              .containsExactly(Map.entry("channel", "web"));
          assertThat(seen.get(id).headers()).containsExactly(Map.entry("channel", "web"));
          assertThat(seen.get(id).traceId()).isNull(); // no span around the handler
          assertThat(spans)
              .extracting(MutableSpan::name)
              .as("no txmsg span")
              .containsExactlyInAnyOrder("pay", "handler-work");
          MutableSpan work =
              spans.stream().filter(x -> x.name().equals("handler-work")).findFirst().orElseThrow();
          assertThat(work.parentId()).as("the handler's span starts a trace of its own").isNull();
          assertThat(work.traceId()).isNotEqualTo(service.context().traceId());
        });
  }

  /** The service call: a span of the application, current while it calls execute. */
  private Span serviceCall(Env env, String id, Map<String, String> headers) {
    Observation call = Observation.createNotStarted("pay", registry).contextualName("pay");
    Span[] span = {null};
    call.observe(
        () -> {
          span[0] = tracer.currentSpan();
          try (BaggageInScope tenant = tracer.createBaggageInScope("tenant", "acme")) {
            env.producer.template().execute(message(env.topic, id, headers), ctx -> null);
          }
        });
    // The application's registry always traces; only txmsg's registry differs between tests.
    assertThat(span[0]).as("current span of the service call").isNotNull();
    return span[0];
  }

  private void assertConsumedAsChildOf(Env env, String id, Span service, MutableSpan execute)
      throws Exception {
    String traceId = service.context().traceId();
    await("consume span", Duration.ofSeconds(10), () -> find(traceId, "consume").isPresent());
    MutableSpan consume = span(traceId, "consume");
    assertThat(consume.kind()).isEqualTo(brave.Span.Kind.CONSUMER);
    assertThat(consume.parentId()).as("restored from traceparent").isEqualTo(execute.id());
    assertThat(consume.tags())
        .containsEntry("txmsg.group", env.group)
        .containsEntry("txmsg.event_type", "PaymentSucceeded")
        .containsEntry("txmsg.outcome", "applied");
    MutableSpan work = span(traceId, "handler-work");
    assertThat(work.parentId()).as("the handler runs inside txmsg.consume").isEqualTo(consume.id());
    assertThat(seen.get(id).traceId()).isEqualTo(traceId);
    assertThat(seen.get(id).headers().get("traceparent"))
        .startsWith("00-" + traceId + "-" + execute.id() + "-");
  }

  private MutableSpan span(String traceId, String suffix) throws Exception {
    await(suffix + " span", Duration.ofSeconds(10), () -> find(traceId, suffix).isPresent());
    return find(traceId, suffix).orElseThrow();
  }

  private Optional<MutableSpan> find(String traceId, String suffix) {
    return spans.stream()
        .filter(s -> s.traceId().equals(traceId) && s.name() != null && s.name().endsWith(suffix))
        .findFirst();
  }

  private static TxMessage message(String topic, String id, Map<String, String> headers) {
    return TxMessage.builder()
        .eventId(id)
        .topic(topic)
        .eventType("PaymentSucceeded")
        .aggregate("Payment", id, 1)
        .payload(ConsumerHarness.paid("a", 1))
        .headers(headers)
        .build();
  }

  /** One producer, one consumer group, on the embedded broker. */
  private final class Env {
    final String suffix = UUID.randomUUID().toString().substring(0, 8);
    final String topic = "tr-" + suffix;
    final String group = "traced-" + topic;
    final Map<String, Integer> handledCount = new ConcurrentHashMap<>();
    final Set<String> failOnce = ConcurrentHashMap.newKeySet();
    TxConsumers consumers;
    TxProducer producer;
    Journal journal;

    JournalRow journal(String id) throws Exception {
      return journal.find(id);
    }

    int handled(String id) {
      return handledCount.getOrDefault(id, 0);
    }

    void awaitHandled(String id) throws Exception {
      await("handled " + id, DELIVERY, () -> handled(id) >= 1);
    }
  }

  private interface Body {
    void run(Env env) throws Exception;
  }

  private void run(
      TestTransport transport,
      TestDatabase kind,
      TopicType topicType,
      Consumer<TxProducerSettings> settings,
      ProducerInterceptor interceptor,
      boolean traced,
      Body body)
      throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    Env env = new Env();
    mq.createTopic(env.topic, topicType);
    mq.createConsumerGroup(env.group, 5, Duration.ofMillis(500), Duration.ofSeconds(1));
    // A plain connection's fresh group could start past a message sent before its first rebalance.
    mq.startGroupAtFirstMessage(env.group, env.topic);
    TxProducerSettings ps =
        new TxProducerSettings()
            .connection(transport.connection(mq))
            .topics(env.topic)
            .storeId("tracing-" + env.suffix)
            .autoCreateSchema(true);
    settings.accept(ps);
    EventHandler<Paid> handler =
        (event, ctx) -> {
          if (env.failOnce.remove(ctx.eventId())) {
            throw new PermanentConsumeException("parked on purpose");
          }
          Span current = tracer.currentSpan();
          tracer.nextSpan().name("handler-work").start().end();
          String tenant =
              tracer.getBaggage("tenant") == null ? null : tracer.getBaggage("tenant").get();
          seen.put(
              ctx.eventId(),
              new Seen(
                  Map.copyOf(ctx.headers()),
                  current == null ? null : current.context().traceId(),
                  tenant));
          env.handledCount.merge(ctx.eventId(), 1, Integer::sum);
        };
    try (DatabaseFixture db = kind.open()) {
      TxProducer.Builder pb =
          TxProducer.builder().dataSource(db.dataSource()).settings(ps).interceptor(interceptor);
      TxConsumers.Builder cb =
          TxConsumers.builder()
              .dataSource(db.dataSource())
              .settings(new TxConsumerSettings().connection(transport.connection(mq)))
              .handler(
                  HandlerDefinition.of(
                      env.group, env.topic, "PaymentSucceeded", Paid.class, handler));
      if (traced) {
        pb.observationRegistry(registry);
        cb.observationRegistry(registry);
      }
      try (TxProducer producer = pb.build();
          TxConsumers consumers = cb.build()) {
        env.producer = producer;
        env.consumers = consumers;
        env.journal = new Journal(db.dataSource(), TxmsgStore.detect(db.dataSource(), "txmsg_"));
        body.run(env);
      }
    }
  }
}
