package io.txmsg.store.journal;

import io.txmsg.api.PayloadHashes;
import io.txmsg.api.TxMessage;
import io.txmsg.store.HeadersCodec;
import io.txmsg.transport.EnvelopeSource;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One row of the journal table; column names in snake case map to these fields. The producer builds
 * its rows with {@link #of}; MyBatis fills the rows it reads through the setters.
 */
public class JournalRow implements EnvelopeSource {
  private String eventId;
  private String attemptId;
  private String storeId;
  private String aggregateType;
  private String aggregateId;
  private long aggregateVersion;
  private String eventType;
  private int eventVersion;
  private String destination;
  private String tag;
  private String messageKey;
  private String businessKey;
  private byte[] payload;
  private String payloadHash;
  private String contentType;
  private String headers;
  private JournalStatus status;
  private String ownerToken;
  private Instant leaseUntil;
  private int retryCount;
  private Instant nextRetryAt;
  private int checkbackCount;
  private Instant lastCheckbackAt;
  private String brokerMessageId;
  private String lastErrorCode;
  private String lastErrorMessage;
  private Instant createdAt;
  private Instant sentAt;
  private Instant updatedAt;
  private PublishMode publishMode;
  private String messageGroup;
  private String instanceId;
  private long republishAfterMillis;

  /** {@link #headers} decoded, kept so that each send does not parse the column again. */
  private Map<String, String> headerMap;

  /**
   * The row of {@code message}'s event as the producer writes it, published as a half message until
   * {@link #setPublishMode} says otherwise: the payload hash computed once, over the event's
   * identity and bytes (never over per-send properties, so a retry from another trace is the same
   * event), and the headers encoded once for the column and kept as they are for the sends.
   *
   * @param payload the serialized, sanitized and size-checked payload, used as is
   * @param contentType the serializer's content type; null for raw bytes
   * @param headers the application headers to store (with any trace headers), never null
   * @param originTime created_at and the envelope's origin time: a republish is byte-identical
   */
  public static JournalRow of(
      TxMessage message,
      String attemptId,
      String storeId,
      byte[] payload,
      String contentType,
      Map<String, String> headers,
      Instant originTime) {
    JournalRow row = new JournalRow();
    row.eventId = message.eventId();
    row.attemptId = attemptId;
    row.storeId = storeId;
    row.aggregateType = message.aggregateType();
    row.aggregateId = message.aggregateId();
    row.aggregateVersion = message.aggregateVersion();
    row.eventType = message.eventType();
    row.eventVersion = message.eventVersion();
    row.destination = message.topic();
    row.tag = message.tag();
    row.messageKey = message.eventId();
    row.businessKey = message.businessKey();
    row.payload = payload;
    row.contentType = contentType;
    row.headers = HeadersCodec.encode(headers);
    row.headerMap = Collections.unmodifiableMap(new TreeMap<>(headers));
    row.payloadHash =
        PayloadHashes.compute(
            message.eventId(),
            message.eventType(),
            message.eventVersion(),
            message.aggregateType(),
            message.aggregateId(),
            message.aggregateVersion(),
            payload);
    row.createdAt = originTime;
    row.publishMode = PublishMode.HALF_MESSAGE;
    return row;
  }

  public String getEventId() {
    return eventId;
  }

  public void setEventId(String eventId) {
    this.eventId = eventId;
  }

  public String getAttemptId() {
    return attemptId;
  }

  public void setAttemptId(String attemptId) {
    this.attemptId = attemptId;
  }

  public String getStoreId() {
    return storeId;
  }

  public void setStoreId(String storeId) {
    this.storeId = storeId;
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

  public long getAggregateVersion() {
    return aggregateVersion;
  }

  public void setAggregateVersion(long aggregateVersion) {
    this.aggregateVersion = aggregateVersion;
  }

  public String getEventType() {
    return eventType;
  }

  public void setEventType(String eventType) {
    this.eventType = eventType;
  }

  public int getEventVersion() {
    return eventVersion;
  }

  public void setEventVersion(int eventVersion) {
    this.eventVersion = eventVersion;
  }

  public String getDestination() {
    return destination;
  }

  public void setDestination(String destination) {
    this.destination = destination;
  }

  public String getTag() {
    return tag;
  }

  public void setTag(String tag) {
    this.tag = tag;
  }

  public String getMessageKey() {
    return messageKey;
  }

  public void setMessageKey(String messageKey) {
    this.messageKey = messageKey;
  }

  public String getBusinessKey() {
    return businessKey;
  }

  public void setBusinessKey(String businessKey) {
    this.businessKey = businessKey;
  }

  public byte[] getPayload() {
    return payload;
  }

  public void setPayload(byte[] payload) {
    this.payload = payload;
  }

  public String getPayloadHash() {
    return payloadHash;
  }

  public void setPayloadHash(String payloadHash) {
    this.payloadHash = payloadHash;
  }

  public String getContentType() {
    return contentType;
  }

  public void setContentType(String contentType) {
    this.contentType = contentType;
  }

  /** The application headers decoded from the {@code headers} column (decoded once). */
  @Override
  public Map<String, String> headerMap() {
    Map<String, String> m = headerMap;
    if (m == null) {
      m = Collections.unmodifiableMap(HeadersCodec.decode(headers));
      headerMap = m;
    }
    return m;
  }

  public String getHeaders() {
    return headers;
  }

  public void setHeaders(String headers) {
    this.headers = headers;
    this.headerMap = null;
  }

  public JournalStatus getStatus() {
    return status;
  }

  public void setStatus(JournalStatus status) {
    this.status = status;
  }

  public String getOwnerToken() {
    return ownerToken;
  }

  public void setOwnerToken(String ownerToken) {
    this.ownerToken = ownerToken;
  }

  public Instant getLeaseUntil() {
    return leaseUntil;
  }

  public void setLeaseUntil(Instant leaseUntil) {
    this.leaseUntil = leaseUntil;
  }

  public int getRetryCount() {
    return retryCount;
  }

  public void setRetryCount(int retryCount) {
    this.retryCount = retryCount;
  }

  public Instant getNextRetryAt() {
    return nextRetryAt;
  }

  public void setNextRetryAt(Instant nextRetryAt) {
    this.nextRetryAt = nextRetryAt;
  }

  public int getCheckbackCount() {
    return checkbackCount;
  }

  public void setCheckbackCount(int checkbackCount) {
    this.checkbackCount = checkbackCount;
  }

  public Instant getLastCheckbackAt() {
    return lastCheckbackAt;
  }

  public void setLastCheckbackAt(Instant lastCheckbackAt) {
    this.lastCheckbackAt = lastCheckbackAt;
  }

  public String getBrokerMessageId() {
    return brokerMessageId;
  }

  public void setBrokerMessageId(String brokerMessageId) {
    this.brokerMessageId = brokerMessageId;
  }

  public String getLastErrorCode() {
    return lastErrorCode;
  }

  public void setLastErrorCode(String lastErrorCode) {
    this.lastErrorCode = lastErrorCode;
  }

  public String getLastErrorMessage() {
    return lastErrorMessage;
  }

  public void setLastErrorMessage(String lastErrorMessage) {
    this.lastErrorMessage = lastErrorMessage;
  }

  public Instant getCreatedAt() {
    return createdAt;
  }

  public void setCreatedAt(Instant createdAt) {
    this.createdAt = createdAt;
  }

  public Instant getSentAt() {
    return sentAt;
  }

  public void setSentAt(Instant sentAt) {
    this.sentAt = sentAt;
  }

  public Instant getUpdatedAt() {
    return updatedAt;
  }

  public void setUpdatedAt(Instant updatedAt) {
    this.updatedAt = updatedAt;
  }

  /**
   * How the row is (re)published. {@link PublishMode#HALF_MESSAGE} when never set: a writer that
   * predates the OUTBOX mode inserts half-message rows without knowing this field.
   */
  public PublishMode getPublishMode() {
    return publishMode == null ? PublishMode.HALF_MESSAGE : publishMode;
  }

  public void setPublishMode(PublishMode publishMode) {
    this.publishMode = publishMode;
  }

  /** The FIFO message group; null for topics that are not FIFO. */
  public String getMessageGroup() {
    return messageGroup;
  }

  public void setMessageGroup(String messageGroup) {
    this.messageGroup = messageGroup;
  }

  /**
   * The producer instance that committed the row (schema V5), or the live instance that took it
   * over from a hung one; null for rows written before V5 or by tools. Its heartbeat decides
   * whether another instance republishes the row early ({@code InstanceHeartbeats}).
   */
  public String getInstanceId() {
    return instanceId;
  }

  public void setInstanceId(String instanceId) {
    this.instanceId = instanceId;
  }

  /**
   * Insert only, not a column: the new row's {@code next_retry_at} is the database's clock plus
   * this many milliseconds. It rides on the row so that the insert binds one bean whose property
   * types MyBatis resolves once, when it parses the statement (docs/facts.md, "Statement
   * parameters").
   */
  public long getRepublishAfterMillis() {
    return republishAfterMillis;
  }

  public void setRepublishAfterMillis(long republishAfterMillis) {
    this.republishAfterMillis = republishAfterMillis;
  }
}
