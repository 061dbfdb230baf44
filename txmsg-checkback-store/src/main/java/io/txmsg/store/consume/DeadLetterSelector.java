package io.txmsg.store.consume;

import java.time.Instant;

/** Which parked messages of one consumer group a replay request takes. */
public class DeadLetterSelector {
  private String consumerGroup;
  private java.util.List<String> eventIds;
  private Instant since;
  private Instant until;
  private String eventType;
  private String businessKey;
  private ParkReason reason;

  public String getConsumerGroup() {
    return consumerGroup;
  }

  public void setConsumerGroup(String consumerGroup) {
    this.consumerGroup = consumerGroup;
  }

  public java.util.List<String> getEventIds() {
    return eventIds;
  }

  public void setEventIds(java.util.List<String> eventIds) {
    this.eventIds = eventIds;
  }

  public Instant getSince() {
    return since;
  }

  public void setSince(Instant since) {
    this.since = since;
  }

  public Instant getUntil() {
    return until;
  }

  public void setUntil(Instant until) {
    this.until = until;
  }

  public String getEventType() {
    return eventType;
  }

  public void setEventType(String eventType) {
    this.eventType = eventType;
  }

  public String getBusinessKey() {
    return businessKey;
  }

  public void setBusinessKey(String businessKey) {
    this.businessKey = businessKey;
  }

  public ParkReason getReason() {
    return reason;
  }

  public void setReason(ParkReason reason) {
    this.reason = reason;
  }
}
