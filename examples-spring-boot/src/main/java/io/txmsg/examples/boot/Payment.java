package io.txmsg.examples.boot;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A captured payment of an order: the business fact that {@code PaymentSucceeded} announces. */
@Entity
@Table(name = "payment")
public class Payment {
  @Id
  @Column(name = "order_id")
  private String orderId;

  @Column(name = "event_id", nullable = false)
  private String eventId;

  @Column(name = "customer_id", nullable = false)
  private String customerId;

  @Column(name = "amount_cents", nullable = false)
  private long amountCents;

  protected Payment() {} // for JPA

  public Payment(String orderId, String eventId, String customerId, long amountCents) {
    this.orderId = orderId;
    this.eventId = eventId;
    this.customerId = customerId;
    this.amountCents = amountCents;
  }

  public String getOrderId() {
    return orderId;
  }

  public String getEventId() {
    return eventId;
  }

  public String getCustomerId() {
    return customerId;
  }

  public long getAmountCents() {
    return amountCents;
  }
}
