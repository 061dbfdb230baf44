package io.txmsg.examples.boot;

/**
 * The event's payload (JSON): a payment was captured.
 *
 * @param orderId the paid order
 * @param customerId who paid
 * @param amountCents the amount, in cents
 */
public record PaymentSucceeded(String orderId, String customerId, long amountCents) {
  /** The event type, as in {@code @TxMessageHandler(eventType = ...)}. */
  public static final String TYPE = "PaymentSucceeded";

  /** The TRANSACTION topic, as in {@code txmsg.producer.topics}. */
  public static final String TOPIC = "payment";
}
