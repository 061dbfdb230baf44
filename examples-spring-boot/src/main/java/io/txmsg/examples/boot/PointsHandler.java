package io.txmsg.examples.boot;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Credits loyalty points for every payment (consumer group {@code points}, subscribed in {@code
 * txmsg.consumer.groups.points}). The handler runs in the local transaction that claims the event
 * in {@code txmsg_consume_log}; JdbcTemplate joins it, so the ledger row commits with the claim and
 * a redelivered or duplicated event is recognised and never credited twice.
 */
@Component
public class PointsHandler {
  private final JdbcTemplate jdbc;

  public PointsHandler(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @TxMessageHandler(
      topic = PaymentSucceeded.TOPIC,
      consumerGroup = "points",
      eventType = PaymentSucceeded.TYPE)
  public void onPaymentSucceeded(PaymentSucceeded event, ConsumeContext ctx) {
    jdbc.update(
        "INSERT INTO points_ledger (event_id, order_id, customer_id, points) VALUES (?, ?, ?, ?)",
        ctx.eventId(),
        event.orderId(),
        event.customerId(),
        (event.amountCents() + 99) / 100); // one point per started unit
  }
}
