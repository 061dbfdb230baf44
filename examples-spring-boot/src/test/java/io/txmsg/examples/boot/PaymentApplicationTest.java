package io.txmsg.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.txmsg.api.ActiveTransactionException;
import io.txmsg.api.TxResult;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.spring.EmbeddedTxmsgBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.annotation.Transactional;

/**
 * The example application as it is shipped (its {@code application.yml}, its beans), tested as a
 * Boot team tests it: {@code @SpringBootTest} with {@link EmbeddedTxmsgBroker}, which starts the
 * embedded RocketMQ cluster, creates the topic and groups {@code application.yml} names and gives
 * the application the broker's NameServer address (remoting, as the application's pom chooses). The
 * database is the application's in-memory H2. The test adds one bean, a Brave {@link SpanHandler}
 * that keeps the finished spans in memory, which Boot's Brave auto-configuration adds to its {@code
 * Tracing}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@EmbeddedTxmsgBroker
class PaymentApplicationTest {
  private static final int PAYMENTS = 5;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final List<MutableSpan> SPANS = new CopyOnWriteArrayList<>();

  /** Collects the finished spans. */
  @TestConfiguration(proxyBeanMethods = false)
  static class Spans {
    @Bean
    SpanHandler testSpans() {
      return new SpanHandler() {
        @Override
        public boolean end(TraceContext context, MutableSpan span, Cause cause) {
          SPANS.add(span);
          return true;
        }
      };
    }
  }

  @Autowired PaymentService payments;
  @Autowired PaymentRepository paymentRows;
  @Autowired PointsLedgerRepository ledger;
  @Autowired HealthEndpoint health;

  /** Commits: each payment's transaction commits, so each event is delivered. */
  @Test
  void paymentsAreCreditedOnceReportedHealthyAndTracedAcrossTheBroker() throws Exception {
    EmbeddedRocketMQ.shared().awaitSubscribed("points", PaymentSucceeded.TOPIC, WAIT);
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<TxResult<Payment>> results = new ArrayList<>();
    for (int i = 1; i <= PAYMENTS; i++) {
      TxResult<Payment> r = payments.pay("order-" + run + "-" + i, "cust-" + i, 1000L * i + 1);
      assertThat(r.outcome()).isEqualTo(TxResult.Outcome.COMMITTED);
      assertThat(r.value().getAttemptId()).as("the entity saved in the action").isNotBlank();
      results.add(r);
    }
    // A retried command (same order, same eventId) is not a second payment.
    TxResult<Payment> retry = payments.pay("order-" + run + "-1", "cust-1", 1001L);
    assertThat(retry.alreadyCommitted()).isTrue();
    assertThat(retry.eventId()).isEqualTo(results.get(0).eventId());

    // (a) every payment's handler write, exactly once
    await(
        "every payment credited",
        () -> results.stream().allMatch(r -> !ledger.findByEventId(r.eventId()).isEmpty()));
    // every journal row confirmed (the consumers saw each event): nothing in flight any more
    await("journal confirmed", () -> Long.valueOf(0).equals(txmsgHealth().get("pending")));
    for (int i = 0; i < PAYMENTS; i++) {
      String id = results.get(i).eventId();
      List<PointsLedgerEntry> entries = ledger.findByEventId(id);
      assertThat(entries).as("ledger entries of %s", id).hasSize(1);
      assertThat(entries.get(0).getPoints()).isEqualTo((1000L * (i + 1) + 1 + 99) / 100);
      assertThat(paymentRows.findById(entries.get(0).getOrderId())).isPresent();
    }
    for (TxResult<Payment> r : results) {
      assertThat(paymentRows.findById(r.value().getOrderId()))
          .get()
          .extracting(Payment::getEventId)
          .isEqualTo(r.eventId());
    }

    // (b) the actuator's "txmsg" contributor: UP, with the backlog as details
    IndicatedHealthDescriptor txmsg = (IndicatedHealthDescriptor) health.healthForPath("txmsg");
    assertThat(txmsg.getStatus()).isEqualTo(Status.UP);
    assertThat(txmsg.getDetails())
        .containsEntry("pending", 0L)
        .containsEntry("oldestUnconfirmedAge", "none")
        .containsEntry("deadRows", 0L)
        .containsEntry("parkedDeadLetters", Map.of());
    // the probe of the configured NameServer reaches the embedded one
    Map<?, ?> broker = (Map<?, ?>) txmsg.getDetails().get("broker");
    assertThat(broker.get("protocol")).isEqualTo("remoting");
    assertThat(broker.get("reachable")).isEqualTo(true);
    assertThat(health.health().getStatus()).isEqualTo(Status.UP);

    // (c) one trace per payment: pay -> txmsg.execute -> (broker) -> txmsg.consume
    List<String> traceIds = new ArrayList<>();
    for (TxResult<Payment> r : results) {
      String id = r.eventId();
      MutableSpan execute = awaitSpan("execute", id);
      MutableSpan consume = awaitSpan("consume", id);
      MutableSpan pay =
          SPANS.stream()
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

  /**
   * Spring runs a {@code @Transactional} test in a transaction it rolls back at the end: nothing
   * the test writes commits, so nothing it would publish could be delivered. {@code execute} does
   * not even start there: it commits a transaction of its own before it commits the half message,
   * and refuses to run inside the caller's (ActiveTransactionException), before any side effect.
   */
  @Test
  @Transactional
  void insideATransactionalTestExecuteRefusesToRunAndNothingIsWritten() {
    long before = paymentRows.count();
    assertThatThrownBy(() -> payments.pay("order-tx-" + UUID.randomUUID(), "cust-tx", 500))
        .isInstanceOf(ActiveTransactionException.class);
    assertThat(paymentRows.count()).isEqualTo(before);
  }

  private Map<String, Object> txmsgHealth() {
    return ((IndicatedHealthDescriptor) health.healthForPath("txmsg")).getDetails();
  }

  /** The span of the observation {@code txmsg.<suffix>} ("payment execute") of one event. */
  private MutableSpan awaitSpan(String suffix, String eventId) throws InterruptedException {
    await(suffix + " span of " + eventId, () -> span(suffix, eventId).isPresent());
    return span(suffix, eventId).orElseThrow();
  }

  private Optional<MutableSpan> span(String suffix, String eventId) {
    return SPANS.stream()
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
