package io.txmsg.examples.boot;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** Loyalty points credited for one payment event. */
@Entity
@Table(name = "points_ledger")
public class PointsLedgerEntry {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;

  @Column(name = "event_id", nullable = false)
  private String eventId;

  @Column(name = "order_id", nullable = false)
  private String orderId;

  @Column(name = "customer_id", nullable = false)
  private String customerId;

  @Column(nullable = false)
  private long points;

  protected PointsLedgerEntry() {} // for JPA

  public PointsLedgerEntry(String eventId, String orderId, String customerId, long points) {
    this.eventId = eventId;
    this.orderId = orderId;
    this.customerId = customerId;
    this.points = points;
  }

  public Long getId() {
    return id;
  }

  public String getEventId() {
    return eventId;
  }

  public String getOrderId() {
    return orderId;
  }

  public String getCustomerId() {
    return customerId;
  }

  public long getPoints() {
    return points;
  }
}
