package io.txmsg.api;

/**
 * Names of the message properties that carry the txmsg envelope. Every message txmsg publishes has
 * them; consumers treat a message without a valid envelope as permanently undeliverable (parked
 * with reason MALFORMED_ENVELOPE).
 */
public final class Envelope {
  public static final String EVENT_ID = "txmsg_event_id";
  public static final String ATTEMPT_ID = "txmsg_attempt_id";
  public static final String STORE_ID = "txmsg_store_id";
  public static final String EVENT_TYPE = "txmsg_event_type";
  public static final String EVENT_VERSION = "txmsg_event_version";
  public static final String AGGREGATE_TYPE = "txmsg_aggregate_type";
  public static final String AGGREGATE_ID = "txmsg_aggregate_id";
  public static final String AGGREGATE_VERSION = "txmsg_aggregate_version";
  public static final String BUSINESS_KEY = "txmsg_business_key";
  public static final String PAYLOAD_HASH = "txmsg_payload_hash";
  public static final String ORIGIN_TIME = "txmsg_origin_time";
  public static final String CONTENT_TYPE = "txmsg_content_type";

  /** Prefix of application headers inside the message properties. */
  public static final String HEADER_PREFIX = "h_";

  private Envelope() {}
}
