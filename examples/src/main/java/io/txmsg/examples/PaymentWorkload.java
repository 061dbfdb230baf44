package io.txmsg.examples;

import io.txmsg.api.EventIds;
import io.txmsg.api.TxResult;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.faults.FaultPlan;
import io.txmsg.examples.faults.FaultPlan.Fault;
import io.txmsg.examples.faults.PoisonAndDuplicateSender;
import io.txmsg.examples.payment.PaymentService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The clients of the payment service: N orders offered at a steady rate (or all at once) and paid
 * on a few threads, each command retried once with the same eventId when it fails; some orders are
 * then marked paid and refunded. Also injects the broker-side faults (duplicate copies, undecodable
 * messages) while the load runs.
 */
final class PaymentWorkload {
  private final PaymentService payments;
  private final PoisonAndDuplicateSender rogue;
  private final FaultPlan plan;
  private final int threads;
  private final int rate;
  final AtomicInteger committed = new AtomicInteger();
  final AtomicInteger retried = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();
  volatile RuntimeException lastError;
  final List<String> poisonIds = new java.util.concurrent.CopyOnWriteArrayList<>();

  PaymentWorkload(
      PaymentService payments,
      PoisonAndDuplicateSender rogue,
      FaultPlan plan,
      int threads,
      int rate) {
    this.payments = payments;
    this.rate = rate;
    this.rogue = rogue;
    this.plan = plan;
    this.threads = threads;
  }

  /** Runs every order; returns when all commands have returned. */
  void run() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      int poison = plan.poisonCount();
      int poisonEvery = poison == 0 ? Integer.MAX_VALUE : Math.max(1, plan.orders() / poison);
      long start = System.nanoTime();
      for (int n = 1; n <= plan.orders(); n++) {
        int order = n;
        if (rate > 0) {
          // Open-loop arrivals, like a service's clients: order n is offered at (n-1)/rate s
          // whether or not earlier ones are done (the threads bound how many run at once).
          long due = start + (n - 1) * 1_000_000_000L / rate;
          long wait = due - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
        }
        futures.add(pool.submit(() -> order(order)));
        if (order % poisonEvery == 0 && poisonIds.size() < poison) {
          poisonIds.add(rogue.sendUndecodable(poisonIds.size() + 1));
          plan.injected(Fault.POISON);
        }
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private Void order(int n) throws Exception {
    String orderId = FaultPlan.orderId(n);
    long amount = 500 + (n * 7919L) % 20000;
    if (!withRetry(attempt -> payments.pay(orderId, amount, attempt))) {
      return null;
    }
    committed.incrementAndGet();
    if (plan.duplicate(n)) {
      rogue.resendCopy(EventIds.fromBusinessKey(PaymentEvents.PAYMENT_SUCCEEDED, orderId));
      plan.injected(Fault.DUPLICATES);
    }
    if (plan.outOfOrder(n)) {
      withRetry(attempt -> payments.markPaid(orderId)); // its half commit is skipped: arrives late
      withRetry(attempt -> payments.refund(orderId, amount));
    }
    return null;
  }

  /** Runs a command, retrying once (same eventId) on failure; false when it never committed. */
  private boolean withRetry(Command command) {
    for (int attempt = 1; attempt <= 2; attempt++) {
      try {
        command.run(attempt);
        return true;
      } catch (RuntimeException e) {
        // The action threw (rolled back), or OutcomeUnknownException: retrying with the same
        // eventId is safe either way (ALREADY_COMMITTED if the first try had committed).
        if (attempt == 1) {
          retried.incrementAndGet();
        }
        lastError = e;
      }
    }
    failed.incrementAndGet();
    return false;
  }

  @FunctionalInterface
  private interface Command {
    TxResult<Integer> run(int attempt);
  }
}
