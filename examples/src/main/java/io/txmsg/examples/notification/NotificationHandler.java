package io.txmsg.examples.notification;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.events.PaymentSucceeded;
import java.nio.charset.StandardCharsets;

/**
 * Consumer group {@code notification}: never calls the SMS gateway inside the transaction. It
 * records an {@code sms} command in the command outbox (same transaction as the consume-log claim);
 * the dispatcher calls {@link FakeSmsGateway} after the commit, with retries and the idempotency
 * key {@code notification:<eventId>:1}.
 */
public class NotificationHandler {
  /** The command type the SMS executor is bound to. */
  public static final String SMS = "sms";

  private final NotificationMapper notifications;

  public NotificationHandler(NotificationMapper notifications) {
    this.notifications = notifications;
  }

  @TxMessageHandler(
      topic = PaymentEvents.TOPIC,
      consumerGroup = PaymentEvents.NOTIFICATION,
      eventType = PaymentEvents.PAYMENT_SUCCEEDED)
  public void onPaymentSucceeded(PaymentSucceeded event, ConsumeContext ctx) {
    String text = "Payment of " + event.amountCents() / 100.0 + " received for " + event.orderId();
    String key =
        ctx.recordCommand(SMS, (event.phone() + "\n" + text).getBytes(StandardCharsets.UTF_8));
    long now = System.currentTimeMillis();
    notifications.insert(
        ctx.eventId(),
        event.orderId(),
        event.phone(),
        key,
        ctx.replay() ? null : now - ctx.originTime().toEpochMilli(),
        now);
  }
}
