package io.txmsg.examples.projection;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.examples.events.OrderPaid;
import io.txmsg.examples.events.OrderRefunded;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.events.PaymentSucceeded;

/**
 * Consumer group {@code search-projection}: keeps one row per order with its latest status. The
 * version guard ({@code versionGuard = true}, monotonic) skips an event whose order version is not
 * newer than the last one applied, so a late OrderPaid v2 never overwrites OrderRefunded v3.
 */
public class ProjectionHandler {
  private final ProjectionMapper projection;

  public ProjectionHandler(ProjectionMapper projection) {
    this.projection = projection;
  }

  @TxMessageHandler(
      topic = PaymentEvents.TOPIC,
      consumerGroup = PaymentEvents.SEARCH_PROJECTION,
      eventType = PaymentEvents.PAYMENT_SUCCEEDED,
      versionGuard = true)
  public void onPaymentSucceeded(PaymentSucceeded event, ConsumeContext ctx) {
    apply(event.orderId(), "PAYMENT_SUCCEEDED", ctx);
  }

  @TxMessageHandler(
      topic = PaymentEvents.TOPIC,
      consumerGroup = PaymentEvents.SEARCH_PROJECTION,
      eventType = PaymentEvents.ORDER_PAID,
      versionGuard = true)
  public void onOrderPaid(OrderPaid event, ConsumeContext ctx) {
    apply(event.orderId(), "PAID", ctx);
  }

  @TxMessageHandler(
      topic = PaymentEvents.TOPIC,
      consumerGroup = PaymentEvents.SEARCH_PROJECTION,
      eventType = PaymentEvents.ORDER_REFUNDED,
      versionGuard = true)
  public void onOrderRefunded(OrderRefunded event, ConsumeContext ctx) {
    apply(event.orderId(), "REFUNDED", ctx);
  }

  /**
   * Update, else insert: safe without an upsert statement because the version guard's UPDATE has
   * locked this order's version row until the transaction ends.
   */
  private void apply(String orderId, String status, ConsumeContext ctx) {
    long version = ctx.aggregateVersion();
    if (projection.update(orderId, status, version, ctx.eventId()) == 0) {
      projection.insert(orderId, status, version, ctx.eventId());
    }
    long now = System.currentTimeMillis();
    projection.history(
        ctx.eventId(),
        orderId,
        status,
        version,
        ctx.replay() ? null : now - ctx.originTime().toEpochMilli(),
        now);
  }
}
