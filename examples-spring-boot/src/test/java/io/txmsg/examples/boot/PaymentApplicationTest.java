package io.txmsg.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.txmsg.api.TxResult;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The example application as it is shipped (its {@code application.yml}, its beans), started on the
 * embedded RocketMQ cluster (gRPC) and an in-memory H2 database. Only the broker endpoint and the
 * database name come from the test; the test adds one bean, a Brave {@link SpanHandler} that keeps
 * the finished spans in memory, which Boot's Brave auto-configuration adds to its {@code Tracing}.
 */
class PaymentApplicationTest {
  private static final int PAYMENTS = 5;
  private static final Duration WAIT = Duration.ofSeconds(40);

  private final List<MutableSpan> spans = new CopyOnWriteArrayList<>();

  @Test
  void paymentsAreCreditedOnceReportedHealthyAndTracedAcrossTheBroker() throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    mq.createTopic(PaymentSucceeded.TOPIC, TopicType.TRANSACTION);
    // 15 broker-side retries: 16 deliveries, the handler's default maxAttempts
    mq.createConsumerGroup("points", 15, Duration.ofMillis(500), Duration.ofSeconds(1));

    SpanHandler collector =
        new SpanHandler() {
          @Override
          public boolean end(TraceContext context, MutableSpan span, Cause cause) {
            spans.add(span);
            return true;
          }
        };
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(PaymentApplication.class)
            .web(WebApplicationType.NONE)
            .initializers(c -> c.getBeanFactory().registerSingleton("testSpans", collector))
            .run(
                "--payments.broker-endpoints=" + mq.grpcEndpoint(),
                "--spring.datasource.url=jdbc:h2:mem:"
                    + UUID.randomUUID()
                    + ";DB_CLOSE_DELAY=-1")) {
      mq.awaitSubscribed("points", PaymentSucceeded.TOPIC, WAIT);
      PaymentService payments = app.getBean(PaymentService.class);
      JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);

      String run = UUID.randomUUID().toString().substring(0, 8);
      List<TxResult<Integer>> results = new ArrayList<>();
      for (int i = 1; i <= PAYMENTS; i++) {
        TxResult<Integer> r = payments.pay("order-" + run + "-" + i, "cust-" + i, 1000L * i + 1);
        assertThat(r.outcome()).isEqualTo(TxResult.Outcome.COMMITTED);
        assertThat(r.value()).as("payment rows inserted in the action").isEqualTo(1);
        results.add(r);
      }
      // A retried command (same order, same eventId) is not a second payment.
      TxResult<Integer> retry = payments.pay("order-" + run + "-1", "cust-1", 1001L);
      assertThat(retry.alreadyCommitted()).isTrue();
      assertThat(retry.eventId()).isEqualTo(results.get(0).eventId());

      // (a) every payment's handler write, exactly once
      await(
          "every payment credited",
          () -> results.stream().allMatch(r -> ledgerRows(jdbc, r.eventId()) >= 1));
      HealthEndpoint health = app.getBean(HealthEndpoint.class);
      // every journal row confirmed (the consumers saw each event): nothing in flight any more
      await("journal confirmed", () -> Long.valueOf(0).equals(txmsgHealth(health).get("pending")));
      for (int i = 0; i < PAYMENTS; i++) {
        String id = results.get(i).eventId();
        assertThat(ledgerRows(jdbc, id)).as("ledger rows of %s", id).isEqualTo(1);
        assertThat(
                jdbc.queryForObject(
                    "SELECT points FROM points_ledger WHERE event_id = ?", Long.class, id))
            .isEqualTo((1000L * (i + 1) + 1 + 99) / 100);
      }
      assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM points_ledger", Integer.class))
          .isEqualTo(PAYMENTS);
      assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM payment", Integer.class))
          .isEqualTo(PAYMENTS);

      // (b) the actuator's "txmsg" contributor: UP, with the backlog as details
      IndicatedHealthDescriptor txmsg = (IndicatedHealthDescriptor) health.healthForPath("txmsg");
      assertThat(txmsg.getStatus()).isEqualTo(Status.UP);
      assertThat(txmsg.getDetails())
          .containsEntry("pending", 0L)
          .containsEntry("oldestUnconfirmedAge", "none")
          .containsEntry("deadRows", 0L)
          .containsEntry("parkedDeadLetters", Map.of());
      // the probe of the configured endpoint reaches the embedded proxy
      Map<?, ?> broker = (Map<?, ?>) txmsg.getDetails().get("broker");
      assertThat(broker.get("protocol")).isEqualTo("grpc");
      assertThat(broker.get("reachable")).isEqualTo(true);
      assertThat(health.health().getStatus()).isEqualTo(Status.UP);

      // (c) one trace per payment: pay -> txmsg.execute -> (broker) -> txmsg.consume
      List<String> traceIds = new ArrayList<>();
      for (TxResult<Integer> r : results) {
        String id = r.eventId();
        MutableSpan execute = awaitSpan("execute", id);
        MutableSpan consume = awaitSpan("consume", id);
        MutableSpan pay =
            spans.stream()
                .filter(s -> s.id().equals(execute.parentId()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no parent span of execute " + id));
        assertThat(pay.name()).isEqualTo("pay");
        assertThat(pay.parentId()).as("the service call starts the trace").isNull();
        assertThat(execute.traceId()).isEqualTo(pay.traceId());
        assertThat(execute.tags()).containsEntry("txmsg.outcome", "committed");
        assertThat(consume.traceId())
            .as("txmsg.consume continues the trace")
            .isEqualTo(pay.traceId());
        assertThat(consume.parentId()).isEqualTo(execute.id());
        assertThat(consume.kind()).isEqualTo(brave.Span.Kind.CONSUMER);
        assertThat(consume.tags())
            .containsEntry("txmsg.group", "points")
            .containsEntry("txmsg.outcome", "applied");
        traceIds.add(pay.traceId());
      }
      assertThat(traceIds).as("a trace per payment").doesNotHaveDuplicates();
    }
  }

  private static int ledgerRows(JdbcTemplate jdbc, String eventId) {
    return jdbc.queryForObject(
        "SELECT COUNT(*) FROM points_ledger WHERE event_id = ?", Integer.class, eventId);
  }

  private static Map<String, Object> txmsgHealth(HealthEndpoint health) {
    return ((IndicatedHealthDescriptor) health.healthForPath("txmsg")).getDetails();
  }

  /** The span of the observation {@code txmsg.<suffix>} ("payment execute") of one event. */
  private MutableSpan awaitSpan(String suffix, String eventId) throws InterruptedException {
    await(suffix + " span of " + eventId, () -> span(suffix, eventId).isPresent());
    return span(suffix, eventId).orElseThrow();
  }

  private Optional<MutableSpan> span(String suffix, String eventId) {
    return spans.stream()
        .filter(
            s ->
                s.name() != null
                    && s.name().endsWith(suffix)
                    && eventId.equals(s.tag("txmsg.event_id")))
        .findFirst();
  }

  private static void await(String what, BooleanSupplier check) throws InterruptedException {
    long until = System.nanoTime() + WAIT.toNanos();
    while (!check.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(50);
    }
  }
}
