package io.txmsg.examples.faults;

import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.faults.FaultPlan.Fault;

/**
 * Skips the broker step after the local commit, exactly like a producer dying there: the
 * half-message commit (HALF_MESSAGE mode) or the send after commit (OUTBOX mode), for the
 * PaymentSucceeded of "crashing" orders and for every held-back OrderPaid v2 (so that it arrives
 * after OrderRefunded v3). The broker's check-back (HALF_MESSAGE) or the reconciler (both modes)
 * then delivers those events.
 */
public final class ProducerFaults implements ProducerInterceptor {
  private final FaultPlan plan;

  public ProducerFaults(FaultPlan plan) {
    this.plan = plan;
  }

  @Override
  public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
    return proceed(message);
  }

  @Override
  public boolean beforeSend(TxMessage message, String attemptId) {
    return proceed(message);
  }

  private boolean proceed(TxMessage message) {
    int order = FaultPlan.orderNumber(message.businessKey());
    if (PaymentEvents.PAYMENT_SUCCEEDED.equals(message.eventType()) && plan.producerCrash(order)) {
      plan.injected(Fault.PRODUCER_CRASH);
      return false;
    }
    if (PaymentEvents.ORDER_PAID.equals(message.eventType()) && plan.outOfOrder(order)) {
      plan.injected(Fault.OUT_OF_ORDER);
      return false;
    }
    return true;
  }
}
