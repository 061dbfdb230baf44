package io.txmsg.boot.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A business entity of the JPA tests. {@code reference} is unique: a second entity with the same
 * reference fails only when Hibernate flushes it, at commit unless flushed earlier.
 */
@Entity
@Table(name = "jpa_payment")
public class JpaPayment {
  @Id
  @Column(length = 64)
  private String id;

  @Column(nullable = false, unique = true, length = 64)
  private String reference;

  @Column(nullable = false)
  private int amount;

  protected JpaPayment() {} // for JPA

  public JpaPayment(String id, String reference, int amount) {
    this.id = id;
    this.reference = reference;
    this.amount = amount;
  }

  public String getId() {
    return id;
  }
}
