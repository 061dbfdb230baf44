package io.txmsg.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.Commit;
import org.springframework.test.context.transaction.AfterTransaction;
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
  @Autowired JdbcTemplate jdbc;

  /** Commits: each payment's transaction commits, so each event is delivered. */
  @Test
  void paymentsAreCreditedOnceReportedHealthyAndTracedAcrossTheBroker() throws Exception {
    EmbeddedRocketMQ.shared().awaitSubscribed("points", PaymentSucceeded.TOPIC, WAIT);
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<Payment> results = new ArrayList<>();
    for (int i = 1; i <= PAYMENTS; i++) {
      Payment p = payments.pay("order-" + run + "-" + i, "cust-" + i, 1000L * i + 1);
      assertThat(paymentRows.findById(p.getOrderId())).as("committed").isPresent();
      results.add(p);
    }
    // A retried command (same order, same eventId) is not a second payment.
    Payment retry = payments.pay("order-" + run + "-1", "cust-1", 1001L);
    assertThat(retry.getEventId()).isEqualTo(results.get(0).getEventId());

    // (a) every payment's handler write, exactly once
    await(
        "every payment credited",
        () -> results.stream().allMatch(p -> !ledger.findByEventId(p.getEventId()).isEmpty()));
    // every journal row confirmed (the consumers saw each event): nothing in flight any more
    await("journal confirmed", () -> Long.valueOf(0).equals(txmsgHealth().get("pending")));
    for (int i = 0; i < PAYMENTS; i++) {
      String id = results.get(i).getEventId();
      List<PointsLedgerEntry> entries = ledger.findByEventId(id);
      assertThat(entries).as("ledger entries of %s", id).hasSize(1);
      assertThat(entries.get(0).getPoints()).isEqualTo((1000L * (i + 1) + 1 + 99) / 100);
      assertThat(paymentRows.findById(entries.get(0).getOrderId())).isPresent();
    }
    for (Payment p : results) {
      assertThat(paymentRows.findById(p.getOrderId()))
          .get()
          .extracting(Payment::getEventId)
          .isEqualTo(p.getEventId());
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

    // (c) one trace per payment: pay -> txmsg.execute (the joined publish) -> (broker) ->
    // txmsg.consume
    List<String> traceIds = new ArrayList<>();
    for (Payment p : results) {
      String id = p.getEventId();
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
      assertThat(execute.tags())
          .containsEntry("txmsg.outcome", "joined")
          .containsEntry("txmsg.mode", "joined_half_message");
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
   * Spring runs a {@code @Transactional} test in a transaction it rolls back at the end. The
   * service's {@code @Transactional} method joins it, and so does its {@code publish}: inside the
   * test the payment is there, and after the test's rollback neither the payment nor the event's
   * journal row exists, and the event is never delivered ({@link #afterTheTestsTransaction}).
   */
  @Test
  @Transactional
  void aTransactionalTestIsRolledBackByDefaultAndDeliversNothing() {
    expectation = Expectation.ROLLED_BACK;
    orderId = "order-rb-" + UUID.randomUUID();
    Payment p = payments.pay(orderId, "cust-tx", 500);
    eventId = p.getEventId();
    assertThat(paymentRows.findById(orderId))
        .as("visible inside the test's transaction")
        .isPresent();
  }

  /**
   * The same test with {@link Commit}: the test's transaction commits after the method, and the
   * event is delivered then ({@link #afterTheTestsTransaction}).
   */
  @Test
  @Transactional
  @Commit
  void aTransactionalTestWithCommitDeliversAfterTheTestsCommit() {
    expectation = Expectation.COMMITTED;
    orderId = "order-commit-" + UUID.randomUUID();
    eventId = payments.pay(orderId, "cust-tx", 700).getEventId();
    assertThat(ledger.findByEventId(eventId)).as("nothing before the commit").isEmpty();
  }

  private enum Expectation {
    ROLLED_BACK,
    COMMITTED
  }

  private Expectation expectation;
  private String orderId;
  private String eventId;

  @AfterTransaction
  void afterTheTestsTransaction() throws Exception {
    if (expectation == null) {
      return;
    }
    Integer journalRows =
        jdbc.queryForObject(
            "SELECT COUNT(*) FROM txmsg_journal WHERE event_id = ?", Integer.class, eventId);
    if (expectation == Expectation.COMMITTED) {
      assertThat(paymentRows.findById(orderId)).isPresent();
      assertThat(journalRows).isEqualTo(1);
      await("the committed test's event credited", () -> !ledger.findByEventId(eventId).isEmpty());
      assertThat(ledger.findByEventId(eventId)).hasSize(1);
      return;
    }
    assertThat(paymentRows.findById(orderId)).as("rolled back with the test").isEmpty();
    assertThat(journalRows).as("the event's row rolled back with it").isZero();
    // Its half message is rolled back and its attempt settled ROLLED_BACK after the rollback,
    // so no check-back can commit it. Quiet period: long enough for check-backs to have come.
    await(
        "the rolled-back attempt settled",
        () ->
            jdbc.queryForObject(
                    "SELECT COUNT(*) FROM txmsg_attempt WHERE event_id = ? AND state = 'ROLLED_BACK'",
                    Integer.class,
                    eventId)
                == 1);
    Thread.sleep(6000);
    assertThat(ledger.findByEventId(eventId)).as("never delivered").isEmpty();
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
