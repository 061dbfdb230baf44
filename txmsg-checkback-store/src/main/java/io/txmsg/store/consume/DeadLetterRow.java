package io.txmsg.store.consume;

import java.time.Instant;

/** One parked message (kind MESSAGE) or payload conflict (kind CONFLICT) of one consumer group. */
public class DeadLetterRow {
  private String consumerGroup;
  private String eventId;
  private String requestHash;
  private DeadLetterKind kind;
  private DeadLetterStatus status;
  private ParkReason reason;
  private String businessKey;
  private String eventType;
  private String aggregateType;
  private String aggregateId;
  private Long aggregateVersion;
  private String topic;
  private String brokerMessageId;
  private int attempt;
  private String errorClass;
  private String errorMessage;
  private byte[] payload;
  private String headers;
  private Instant originTime;
  private String replayRequestId;
  private Instant createdAt;
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

  public String getRequestHash() {
    return requestHash;
  }

  public void setRequestHash(String requestHash) {
    this.requestHash = requestHash;
  }

  public DeadLetterKind getKind() {
    return kind;
  }

  public void setKind(DeadLetterKind kind) {
    this.kind = kind;
  }

  public DeadLetterStatus getStatus() {
    return status;
  }

  public void setStatus(DeadLetterStatus status) {
    this.status = status;
  }

  public ParkReason getReason() {
    return reason;
  }

  public void setReason(ParkReason reason) {
    this.reason = reason;
  }

  public String getBusinessKey() {
    return businessKey;
  }

  public void setBusinessKey(String businessKey) {
    this.businessKey = businessKey;
  }

  public String getEventType() {
    return eventType;
  }

  public void setEventType(String eventType) {
    this.eventType = eventType;
  }

  public String getAggregateType() {
    return aggregateType;
  }

  public void setAggregateType(String aggregateType) {
    this.aggregateType = aggregateType;
  }

  public String getAggregateId() {
    return aggregateId;
  }

  public void setAggregateId(String aggregateId) {
    this.aggregateId = aggregateId;
  }

  public Long getAggregateVersion() {
    return aggregateVersion;
  }

  public void setAggregateVersion(Long aggregateVersion) {
    this.aggregateVersion = aggregateVersion;
  }

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    this.topic = topic;
  }

  public String getBrokerMessageId() {
    return brokerMessageId;
  }

  public void setBrokerMessageId(String brokerMessageId) {
    this.brokerMessageId = brokerMessageId;
  }

  public int getAttempt() {
    return attempt;
  }

  public void setAttempt(int attempt) {
    this.attempt = attempt;
  }

  public String getErrorClass() {
    return errorClass;
  }

  public void setErrorClass(String errorClass) {
    this.errorClass = errorClass;
  }

  public String getErrorMessage() {
    return errorMessage;
  }

  public void setErrorMessage(String errorMessage) {
    this.errorMessage = errorMessage;
  }

  public byte[] getPayload() {
    return payload;
  }

  public void setPayload(byte[] payload) {
    this.payload = payload;
  }

  public String getHeaders() {
    return headers;
  }

  public void setHeaders(String headers) {
    this.headers = headers;
  }

  public Instant getOriginTime() {
    return originTime;
  }

  public void setOriginTime(Instant originTime) {
    this.originTime = originTime;
  }

  public String getReplayRequestId() {
    return replayRequestId;
  }

  public void setReplayRequestId(String replayRequestId) {
    this.replayRequestId = replayRequestId;
  }

  public Instant getCreatedAt() {
    return createdAt;
  }

  public void setCreatedAt(Instant createdAt) {
    this.createdAt = createdAt;
  }

  public Instant getUpdatedAt() {
    return updatedAt;
  }

  public void setUpdatedAt(Instant updatedAt) {
    this.updatedAt = updatedAt;
  }
}
