package io.txmsg.examples.events;

/** Names shared by the payment service and its consumers (annotation values must be constants). */
public final class PaymentEvents {
  /** The TRANSACTION topic every payment event goes to. */
  public static final String TOPIC = "payment";

  /** The aggregate all three event types change. */
  public static final String AGGREGATE = "Order";

  public static final String PAYMENT_SUCCEEDED = "PaymentSucceeded";
  public static final String ORDER_PAID = "OrderPaid";
  public static final String ORDER_REFUNDED = "OrderRefunded";

  /** Consumer groups. */
  public static final String POINTS = "points";

  public static final String NOTIFICATION = "notification";
  public static final String SEARCH_PROJECTION = "search-projection";

  /** The producer's store id (also names its confirm group {@code txmsg-confirm-payments}). */
  public static final String STORE_ID = "payments";

  private PaymentEvents() {}
}
