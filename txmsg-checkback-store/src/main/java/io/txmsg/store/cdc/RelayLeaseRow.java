package io.txmsg.store.cdc;

import java.time.Instant;

/** The relay lease row of a store ({@code ${prefix}cdc_relay}). */
public class RelayLeaseRow {
  private String storeId;
  private String ownerToken;
  private long generation;
  private Instant leaseUntil;
  private String ownerInfo;
  private Instant acquiredAt;
  private Instant renewedAt;

  public String getStoreId() {
    return storeId;
  }

  public void setStoreId(String storeId) {
    this.storeId = storeId;
  }

  /** Null when the lease was released. */
  public String getOwnerToken() {
    return ownerToken;
  }

  public void setOwnerToken(String ownerToken) {
    this.ownerToken = ownerToken;
  }

  /** How many times the lease was acquired; every write of a relay names it. */
  public long getGeneration() {
    return generation;
  }

  public void setGeneration(long generation) {
    this.generation = generation;
  }

  /** Null when released. */
  public Instant getLeaseUntil() {
    return leaseUntil;
  }

  public void setLeaseUntil(Instant leaseUntil) {
    this.leaseUntil = leaseUntil;
  }

  /** Who holds it, for operators: host and process id. */
  public String getOwnerInfo() {
    return ownerInfo;
  }

  public void setOwnerInfo(String ownerInfo) {
    this.ownerInfo = ownerInfo;
  }

  public Instant getAcquiredAt() {
    return acquiredAt;
  }

  public void setAcquiredAt(Instant acquiredAt) {
    this.acquiredAt = acquiredAt;
  }

  public Instant getRenewedAt() {
    return renewedAt;
  }

  public void setRenewedAt(Instant renewedAt) {
    this.renewedAt = renewedAt;
  }
}
