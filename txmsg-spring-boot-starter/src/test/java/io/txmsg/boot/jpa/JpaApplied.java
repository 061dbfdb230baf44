package io.txmsg.boot.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * What the consumer's JPA handler writes per application: an insert keyed by its own id, never an
 * upsert, so a second application of one event shows as a second row.
 */
@Entity
@Table(name = "jpa_applied")
public class JpaApplied {
  @Id
  @Column(length = 64)
  private String id;

  @Column(name = "event_id", nullable = false, length = 64)
  private String eventId;

  protected JpaApplied() {} // for JPA

  public JpaApplied(String id, String eventId) {
    this.id = id;
    this.eventId = eventId;
  }
}
