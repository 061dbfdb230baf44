package io.txmsg.cdc;

import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.journal.PublishMode;
import java.nio.ByteBuffer;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Date;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * A journal insert as Debezium reports it, turned back into the {@link JournalRow} the reconciler
 * would read, so that {@code EnvelopeCodec.encode} builds the same message from either:
 * byte-identical body, keys, tag, properties and message group.
 *
 * <p>The one conversion that matters is {@code created_at} (the envelope's origin time): the column
 * is a timestamp without time zone, which Debezium reports as the wall-clock value counted as UTC
 * milliseconds, while the JDBC drivers read it in the JVM's default time zone. The wall clock is
 * therefore read back the way the drivers do ({@link Timestamp#valueOf(LocalDateTime)}).
 */
final class JournalImage {
  private JournalImage() {}

  /**
   * The inserted row, when {@code record} is the insert of a CDC row of {@code storeId}; null for
   * everything else (heartbeats, updates and deletes, other stores' rows, rows another mode
   * publishes).
   */
  static JournalRow cdcInsertOf(SourceRecord record, String storeId) {
    if (!(record.value() instanceof Struct envelope)
        || envelope.schema().field("op") == null
        || !"c".equals(envelope.getString("op"))) {
      return null;
    }
    Struct after = envelope.getStruct("after");
    if (after == null
        || !PublishMode.CDC.name().equals(after.getString("publish_mode"))
        || !storeId.equals(after.getString("store_id"))) {
      return null;
    }
    return rowOf(after);
  }

  static JournalRow rowOf(Struct after) {
    JournalRow r = new JournalRow();
    r.setEventId(after.getString("event_id"));
    r.setAttemptId(after.getString("attempt_id"));
    r.setStoreId(after.getString("store_id"));
    r.setAggregateType(after.getString("aggregate_type"));
    r.setAggregateId(after.getString("aggregate_id"));
    r.setAggregateVersion(((Number) after.get("aggregate_version")).longValue());
    r.setEventType(after.getString("event_type"));
    r.setEventVersion(((Number) after.get("event_version")).intValue());
    r.setDestination(after.getString("destination"));
    r.setTag(after.getString("tag"));
    r.setMessageKey(after.getString("message_key"));
    r.setBusinessKey(after.getString("business_key"));
    r.setPayload(bytes(after.get("payload")));
    r.setPayloadHash(after.getString("payload_hash"));
    r.setContentType(after.getString("content_type"));
    r.setHeaders(after.getString("headers"));
    r.setStatus(JournalStatus.valueOf(after.getString("status")));
    r.setCreatedAt(instant(after, "created_at"));
    r.setPublishMode(PublishMode.CDC);
    r.setMessageGroup(after.getString("message_group"));
    return r;
  }

  private static byte[] bytes(Object value) {
    if (value instanceof byte[] b) {
      return b;
    }
    if (value instanceof ByteBuffer buffer) {
      ByteBuffer copy = buffer.duplicate();
      byte[] out = new byte[copy.remaining()];
      copy.get(out);
      return out;
    }
    throw new IllegalStateException("payload is not binary: " + value);
  }

  /**
   * Debezium's timestamp of a column without time zone, read as the JDBC drivers read the column:
   * the wall-clock value in the JVM's default time zone.
   */
  static java.time.Instant instant(Struct after, String column) {
    Field field = after.schema().field(column);
    Object value = after.get(field);
    long wallMillis;
    if (value instanceof Date d) {
      wallMillis = d.getTime(); // org.apache.kafka.connect.data.Timestamp
    } else if (value instanceof Number n) {
      String name = field.schema().name();
      wallMillis =
          "io.debezium.time.MicroTimestamp".equals(name)
              ? Math.floorDiv(n.longValue(), 1000)
              : "io.debezium.time.NanoTimestamp".equals(name)
                  ? Math.floorDiv(n.longValue(), 1_000_000)
                  : n.longValue();
    } else {
      throw new IllegalStateException(column + " is not a timestamp: " + value);
    }
    return wallClock(wallMillis);
  }

  /** UTC-counted wall-clock milliseconds as the instant JDBC gives for that wall clock. */
  static java.time.Instant wallClock(long wallMillis) {
    LocalDateTime wall =
        LocalDateTime.ofEpochSecond(
            Math.floorDiv(wallMillis, 1000),
            (int) Math.floorMod(wallMillis, 1000) * 1_000_000,
            ZoneOffset.UTC);
    return Timestamp.valueOf(wall).toInstant();
  }
}
