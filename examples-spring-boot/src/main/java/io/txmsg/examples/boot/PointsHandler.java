package io.txmsg.examples.boot;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import org.springframework.stereotype.Component;

/**
 * Credits loyalty points for every payment (consumer group {@code points}, subscribed in {@code
 * txmsg.consumer.groups.points}). The handler runs in the local transaction that claims the event
 * in {@code txmsg_consume_log} (Boot's JpaTransactionManager); the repository joins it, so the
 * ledger entry commits with the claim and a redelivered or duplicated event is recognised and never
 * credited twice.
 */
@Component
public class PointsHandler {
  private final PointsLedgerRepository ledger;

  public PointsHandler(PointsLedgerRepository ledger) {
    this.ledger = ledger;
  }

  @TxMessageHandler(
      topic = PaymentSucceeded.TOPIC,
      consumerGroup = "points",
      eventType = PaymentSucceeded.TYPE)
  public void onPaymentSucceeded(PaymentSucceeded event, ConsumeContext ctx) {
    long points = (event.amountCents() + 99) / 100; // one point per started unit
    ledger.save(new PointsLedgerEntry(ctx.eventId(), event.orderId(), event.customerId(), points));
  }
}
