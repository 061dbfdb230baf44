package io.txmsg.store.consume;

import java.time.Instant;

/** One row of the consume log: the dedup claim of one event in one consumer group. */
public class ConsumeLogRow {
  private String consumerGroup;
  private String eventId;
  private String eventType;
  private String requestHash;
  private ConsumeStatus status;
  private String resultRef;
  private int attempt;
  private Instant firstReceivedAt;
  private Instant updatedAt;

  public String getConsumerGroup() {
    return consumerGroup;
  }

  public void setConsumerGroup(String consumerGroup) {
    this.consumerGroup = consumerGroup;
  }

  public String getEventId() {
    return eventId;
  }

  public void setEventId(String eventId) {
    this.eventId = eventId;
  }

  public String getEventType() {
    return eventType;
  }

  public void setEventType(String eventType) {
    this.eventType = eventType;
  }

  public String getRequestHash() {
    return requestHash;
  }

  public void setRequestHash(String requestHash) {
    this.requestHash = requestHash;
  }

  public ConsumeStatus getStatus() {
    return status;
  }

  public void setStatus(ConsumeStatus status) {
    this.status = status;
  }

  public String getResultRef() {
    return resultRef;
  }

  public void setResultRef(String resultRef) {
    this.resultRef = resultRef;
  }

  public int getAttempt() {
    return attempt;
  }

  public void setAttempt(int attempt) {
    this.attempt = attempt;
  }

  public Instant getFirstReceivedAt() {
    return firstReceivedAt;
  }

  public void setFirstReceivedAt(Instant firstReceivedAt) {
    this.firstReceivedAt = firstReceivedAt;
  }

  public Instant getUpdatedAt() {
    return updatedAt;
  }

  public void setUpdatedAt(Instant updatedAt) {
    this.updatedAt = updatedAt;
  }
}
