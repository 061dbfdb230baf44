package io.txmsg.examples.points;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.events.PaymentSucceeded;
import io.txmsg.examples.faults.FaultPlan;
import io.txmsg.examples.faults.FaultPlan.Fault;

/**
 * Consumer group {@code points}: one point per started currency unit. The credit joins the
 * transaction that claims the event in the consume log, so a duplicate never credits twice.
 */
public class PointsHandler {
  private final PointsMapper ledger;
  private final FaultPlan faults;

  public PointsHandler(PointsMapper ledger, FaultPlan faults) {
    this.ledger = ledger;
    this.faults = faults;
  }

  @TxMessageHandler(
      topic = PaymentEvents.TOPIC,
      consumerGroup = PaymentEvents.POINTS,
      eventType = PaymentEvents.PAYMENT_SUCCEEDED)
  public void onPaymentSucceeded(PaymentSucceeded event, ConsumeContext ctx) {
    if (faults.rejectedUntilFix(FaultPlan.orderNumber(event.orderId()))) {
      // A "bug" that an operator fixes later, then replays the parked events.
      faults.injected(Fault.REJECT_UNTIL_FIX);
      throw new PermanentConsumeException("account of " + event.customerId() + " is frozen");
    }
    long now = System.currentTimeMillis();
    ledger.credit(
        ctx.eventId(),
        event.orderId(),
        event.customerId(),
        (event.amountCents() + 99) / 100,
        ctx.replay() ? null : now - ctx.originTime().toEpochMilli(),
        now);
    ctx.resultRef(event.customerId());
  }
}
