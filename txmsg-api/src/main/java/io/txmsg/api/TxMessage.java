package io.txmsg.api;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One business event to publish together with the local transaction that makes it true.
 *
 * <p>Immutable; built with {@link #builder()}. {@link Builder#build()} validates every field before
 * anything is sent or written and throws {@link InvalidTxMessageException} naming the first invalid
 * field. The payload is either raw bytes or an object that the producer serializes with its {@link
 * PayloadSerializer} (JSON by default); the payload size limit of the producer is checked again
 * once the bytes are known.
 *
 * <p>The {@code eventId} is the idempotency key of the whole pipeline: it must be stable across
 * retries of the same business command (derive it with {@link EventIds#fromBusinessKey}), and
 * reusing it for a different event is an error ({@link EventIdConflictException}).
 */
public final class TxMessage {
  private final String eventId;
  private final String topic;
  private final String tag;
  private final String eventType;
  private final int eventVersion;
  private final String aggregateType;
  private final String aggregateId;
  private final long aggregateVersion;
  private final String businessKey;
  private final byte[] payload;
  private final Object payloadObject;
  private final Map<String, String> headers;
  private final String messageGroup;

  private TxMessage(Builder b) {
    this.eventId = b.eventId;
    this.topic = b.topic;
    this.tag = b.tag;
    this.eventType = b.eventType;
    this.eventVersion = b.eventVersion;
    this.aggregateType = b.aggregateType;
    this.aggregateId = b.aggregateId;
    this.aggregateVersion = b.aggregateVersion;
    this.businessKey = b.businessKey;
    this.payload = b.payload == null ? null : b.payload.clone();
    this.payloadObject = b.payloadObject;
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
    this.messageGroup = b.messageGroup;
  }

  /**
   * Whether a header with this name and value passes the builder's validation: a name matching
   * {@code [A-Za-z][A-Za-z0-9_-]{0,63}} without the reserved {@code txmsg_} prefix, a non-null
   * value of at most 1 KiB in UTF-8. For code that adds headers on the user's behalf (trace
   * context).
   */
  public static boolean acceptsHeader(String name, String value) {
    return TxMessageValidator.acceptsHeader(name, value);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder pre-filled with this message's fields (for a copy with another payload, say). */
  public Builder toBuilder() {
    Builder b =
        new Builder()
            .eventId(eventId)
            .topic(topic)
            .tag(tag)
            .eventType(eventType)
            .eventVersion(eventVersion)
            .aggregate(aggregateType, aggregateId, aggregateVersion)
            .businessKey(businessKey)
            .headers(headers)
            .messageGroup(messageGroup);
    if (payload != null) {
      b.payload(payload);
    } else {
      b.payloadObject(payloadObject);
    }
    return b;
  }

  /**
   * The FIFO message group set on the builder, or null: then a message to a FIFO topic goes in the
   * group of its aggregate ({@code aggregateType + ":" + aggregateId}), and a message to any other
   * topic in none.
   */
  public String messageGroup() {
    return messageGroup;
  }

  public String eventId() {
    return eventId;
  }

  public String topic() {
    return topic;
  }

  /** The RocketMQ tag; defaults to the event type. */
  public String tag() {
    return tag == null ? eventType : tag;
  }

  public String eventType() {
    return eventType;
  }

  public int eventVersion() {
    return eventVersion;
  }

  public String aggregateType() {
    return aggregateType;
  }

  public String aggregateId() {
    return aggregateId;
  }

  /** The aggregate's version after the change (monotonic per aggregate). */
  public long aggregateVersion() {
    return aggregateVersion;
  }

  /** Business key for lookups during incidents (e.g. an order number); may be null. */
  public String businessKey() {
    return businessKey;
  }

  /** The raw payload, or null when the message carries an object to serialize. */
  public byte[] payload() {
    return payload == null ? null : payload.clone();
  }

  /** The object to serialize, or null when the message carries raw bytes. */
  public Object payloadObject() {
    return payloadObject;
  }

  public Map<String, String> headers() {
    return headers;
  }

  @Override
  public String toString() {
    // Payloads may hold personal data: never printed. The aggregate id and business key are free
    // text (validated for length only): escaped so that toString() in a log cannot forge lines.
    return "TxMessage{eventId="
        + eventId
        + ", topic="
        + topic
        + ", eventType="
        + eventType
        + ", eventVersion="
        + eventVersion
        + ", aggregate="
        + aggregateType
        + "/"
        + LogSafe.escape(aggregateId)
        + "@"
        + aggregateVersion
        + ", businessKey="
        + LogSafe.escape(businessKey)
        + "}";
  }

  /** Builds a validated {@link TxMessage}. */
  public static final class Builder {
    private String eventId;
    private String topic;
    private String tag;
    private String eventType;
    private int eventVersion = 1;
    private String aggregateType;
    private String aggregateId;
    private long aggregateVersion = -1;
    private String businessKey;
    private byte[] payload;
    private Object payloadObject;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private String messageGroup;

    private Builder() {}

    /**
     * Optional: the FIFO message group, overriding the default (the aggregate, {@code aggregateType
     * + ":" + aggregateId}). Messages of one group are delivered in order on a FIFO topic to a
     * consumer group configured to consume in order (an orderly group: a non-orderly group gets
     * them concurrently); txmsg sends them in aggregate-version order (docs/architecture.md,
     * "Per-aggregate order"). Only for events sent OUTBOX-style (an OUTBOX producer's events,
     * {@code TxContext.publish}): a half message cannot carry a group. At most 128 characters.
     */
    public Builder messageGroup(String messageGroup) {
      this.messageGroup = messageGroup;
      return this;
    }

    /** Required; 1..64 characters of {@code [A-Za-z0-9._:-]}, stable across retries. */
    public Builder eventId(String eventId) {
      this.eventId = eventId;
      return this;
    }

    /**
     * Required: an existing topic the producer declares, of the kind the message's use needs:
     *
     * <ul>
     *   <li>the event of {@link TxMessageTemplate#execute} in {@link DeliveryMode#HALF_MESSAGE}
     *       (the default): a TRANSACTION topic among the producer's {@code topics} (a half message
     *       needs one);
     *   <li>the event of {@code execute} in {@link DeliveryMode#OUTBOX}: a NORMAL or FIFO topic
     *       among the producer's {@code topics};
     *   <li>an event of {@link TxContext#publish}, in either mode: a NORMAL or FIFO topic among the
     *       producer's {@code publishTopics} (or its {@code topics} in OUTBOX mode).
     * </ul>
     *
     * On a FIFO topic the events of one message group reach a consumer group that consumes in order
     * (an orderly group, README "Per-aggregate order") in order ({@link #messageGroup}). The
     * producer checks at start that its topics exist and, where the transport can tell, that their
     * kind fits; a message to a topic it does not declare is refused with {@link
     * InvalidTxMessageException}. 1..127 characters of {@code [A-Za-z0-9%|_-]}.
     */
    public Builder topic(String topic) {
      this.topic = topic;
      return this;
    }

    /** Optional RocketMQ tag; defaults to the event type. */
    public Builder tag(String tag) {
      this.tag = tag;
      return this;
    }

    /** Required; 1..64 characters of {@code [A-Za-z0-9._-]}. */
    public Builder eventType(String eventType) {
      this.eventType = eventType;
      return this;
    }

    /** Schema version of the payload, ≥ 1; default 1. */
    public Builder eventVersion(int eventVersion) {
      this.eventVersion = eventVersion;
      return this;
    }

    /**
     * Required: the aggregate the event changes and its version after the change (≥ 0). Consumers
     * with a version guard use it to skip stale events.
     */
    public Builder aggregate(String type, String id, long version) {
      this.aggregateType = type;
      this.aggregateId = id;
      this.aggregateVersion = version;
      return this;
    }

    /** Optional; at most 128 characters. */
    public Builder businessKey(String businessKey) {
      this.businessKey = businessKey;
      return this;
    }

    /** The payload as bytes (exclusive with {@link #payloadObject}). */
    public Builder payload(byte[] payload) {
      this.payload = payload == null ? null : payload.clone();
      this.payloadObject = null;
      return this;
    }

    /** The payload as an object for the producer's serializer (exclusive with bytes). */
    public Builder payloadObject(Object payloadObject) {
      this.payloadObject = payloadObject;
      this.payload = null;
      return this;
    }

    /** One application header; names may not start with the reserved prefix {@code txmsg_}. */
    public Builder header(String name, String value) {
      this.headers.put(name, value);
      return this;
    }

    public Builder headers(Map<String, String> headers) {
      this.headers.clear();
      if (headers != null) {
        this.headers.putAll(headers);
      }
      return this;
    }

    /**
     * Validates and builds.
     *
     * @throws InvalidTxMessageException naming the first invalid field
     */
    public TxMessage build() {
      TxMessageValidator.validate(this);
      return new TxMessage(this);
    }

    String eventId() {
      return eventId;
    }

    String topic() {
      return topic;
    }

    String tagValue() {
      return tag;
    }

    String eventType() {
      return eventType;
    }

    int eventVersion() {
      return eventVersion;
    }

    String aggregateType() {
      return aggregateType;
    }

    String aggregateId() {
      return aggregateId;
    }

    long aggregateVersion() {
      return aggregateVersion;
    }

    String businessKey() {
      return businessKey;
    }

    String messageGroupValue() {
      return messageGroup;
    }

    byte[] payloadBytes() {
      return payload;
    }

    Object payloadObjectValue() {
      return payloadObject;
    }

    Map<String, String> headerMap() {
      return headers;
    }
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof TxMessage)) {
      return false;
    }
    TxMessage m = (TxMessage) o;
    return eventVersion == m.eventVersion
        && aggregateVersion == m.aggregateVersion
        && eventId.equals(m.eventId)
        && topic.equals(m.topic)
        && Objects.equals(tag, m.tag)
        && eventType.equals(m.eventType)
        && aggregateType.equals(m.aggregateType)
        && aggregateId.equals(m.aggregateId)
        && Objects.equals(businessKey, m.businessKey)
        && Arrays.equals(payload, m.payload)
        && Objects.equals(payloadObject, m.payloadObject)
        && headers.equals(m.headers)
        && Objects.equals(messageGroup, m.messageGroup);
  }

  @Override
  public int hashCode() {
    return Objects.hash(eventId, topic, eventType, aggregateId, aggregateVersion);
  }
}
