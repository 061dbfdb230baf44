package io.txmsg.examples;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.EventIds;
import io.txmsg.consumer.ReplayResult;
import io.txmsg.consumer.spring.TxConsumersLifecycle;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.faults.FaultPlan;
import io.txmsg.examples.faults.FaultPlan.Fault;
import io.txmsg.examples.faults.PoisonAndDuplicateSender;
import io.txmsg.examples.notification.FakeSmsGateway;
import io.txmsg.examples.payment.PaymentService;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The story the demo plays on a running application: pay every order under faults and wait until
 * delivery settles; send the conflicting copies; deploy the fix of the points handler and replay
 * what it rejected; wait again; reconcile from the database.
 */
final class Scenario {
  private final DemoOptions options;
  private final PrintStream out;
  private final long startNanos;
  private final ApplicationContext context;
  private final JdbcTemplate jdbc;
  private final FaultPlan plan;
  private final FakeSmsGateway gateway;
  private final MeterRegistry registry;
  private final PoisonAndDuplicateSender rogue;
  private final PaymentWorkload load;
  private final Quiescence quiescence;

  Scenario(
      DemoOptions options,
      PrintStream out,
      long startNanos,
      ApplicationContext context,
      JdbcTemplate jdbc,
      FaultPlan plan,
      FakeSmsGateway gateway,
      MeterRegistry registry,
      PoisonAndDuplicateSender rogue) {
    this.options = options;
    this.out = out;
    this.startNanos = startNanos;
    this.context = context;
    this.jdbc = jdbc;
    this.plan = plan;
    this.gateway = gateway;
    this.registry = registry;
    this.rogue = rogue;
    this.load =
        new PaymentWorkload(
            context.getBean(PaymentService.class),
            rogue,
            plan,
            options.producerThreads,
            options.rate);
    this.quiescence = new Quiescence(jdbc, () -> load.poisonIds);
  }

  ReconciliationReport play() throws Exception {
    try (Progress progress =
        new Progress(
            out, registry, gateway, load.committed::get, options.orders, options.progressEvery)) {
      out.printf(
          "[4/6] paying %d orders on %d threads, %s...%n",
          options.orders,
          options.producerThreads,
          options.rate > 0 ? options.rate + " per second" : "as fast as they go (--rate 0)");
      long produceStart = System.nanoTime();
      load.run();
      double produceSeconds = PaymentDemo.seconds(produceStart);
      out.printf(
          "      %d payments committed in %.1f s; waiting for delivery...%n",
          load.committed.get(), produceSeconds);
      if (load.failed.get() > 0) {
        out.printf(
            "      %d payments failed twice; last error: %s%n", load.failed.get(), load.lastError);
      }
      List<String> pending = quiescence.await(options.timeout);
      if (!pending.isEmpty()) {
        out.println("      not settled yet: " + pending);
      }
      int conflicts = sendConflicts();
      operatorFixAndReplay();
      pending = quiescence.await(options.timeout);
      progress.print();
      out.println("[6/6] reconciling from the database...");
      DemoRun run =
          new DemoRun(
              options.rate,
              produceSeconds,
              PaymentDemo.seconds(startNanos),
              load.retried.get(),
              load.failed.get(),
              List.copyOf(load.poisonIds),
              conflicts,
              rogue.checkbacks(),
              pending);
      return new Reconciliation(jdbc, registry, gateway, plan).build(run);
    }
  }

  /**
   * Sends the same eventId with another payload for a few orders whose events every group has
   * consumed by now (orders 1, 21, 41...), so the conflict is the copy, never the original.
   */
  private int sendConflicts() throws Exception {
    int sent = 0;
    for (int n = 1; n <= plan.orders() && sent < plan.poisonCount(); n += 20) {
      rogue.sendConflict(
          EventIds.fromBusinessKey(PaymentEvents.PAYMENT_SUCCEEDED, FaultPlan.orderId(n)));
      plan.injected(Fault.POISON);
      sent++;
    }
    long expected = 3L * sent;
    quiescence.also(
        "conflict dead letters missing",
        () ->
            expected
                - jdbc.queryForObject(
                    "SELECT COUNT(*) FROM txmsg_dead_letter WHERE kind = 'CONFLICT'", Long.class));
    return sent;
  }

  private void operatorFixAndReplay() {
    out.println("[5/6] operator: the fix of the points handler is deployed; replaying...");
    plan.deployFix();
    Map<ReplayResult.Status, Integer> replayed =
        new OperatorReplay(jdbc, context.getBean(TxConsumersLifecycle.class).consumers())
            .replayRejectedPoints();
    out.printf("      replay results %s%n", replayed);
    quiescence.also(
        "points events still parked by the rejected-orders bug",
        () ->
            jdbc.queryForObject(
                "SELECT COUNT(*) FROM txmsg_dead_letter WHERE consumer_group = ?"
                    + " AND status = 'PARKED' AND reason = 'PERMANENT_ERROR'",
                Long.class,
                PaymentEvents.POINTS));
  }
}
