package io.txmsg.examples.faults;

import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.PayloadHashes;
import io.txmsg.api.Resolution;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Transports;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Plays the broker and a buggy foreign producer with a producer of its own on the transport port:
 * byte-identical copies of committed events (what a broker redelivery looks like; built by the same
 * {@link EnvelopeCodec} from the journal row), messages whose payload cannot be decoded, and a
 * message reusing a committed eventId with another payload. On a TRANSACTION topic each message is
 * a half message committed at once; on the NORMAL topic of the OUTBOX mode a plain send.
 *
 * <p>Once it has sent to the topic, the proxy includes it in the check-back rotation for that topic
 * (docs/architecture.md, "Check-back"): it then receives check-backs for the payment service's half
 * messages too. So it answers them like any other instance of the service would: from the database,
 * through the application's resolver.
 */
public final class PoisonAndDuplicateSender implements AutoCloseable {
  private final Transport transport;
  private final ProducerChannel producer;
  private final JdbcTemplate jdbc;
  private final boolean plainSends;

  private final AtomicInteger checkbacks = new AtomicInteger();

  public PoisonAndDuplicateSender(
      BrokerConnection connection,
      JdbcTemplate jdbc,
      CheckbackResolver resolver,
      boolean plainSends) {
    this.jdbc = jdbc;
    this.plainSends = plainSends;
    this.transport = Transports.open(connection);
    this.producer =
        transport.openProducer(
            new ProducerSpec(
                "rogue",
                Set.of(PaymentEvents.TOPIC),
                view -> {
                  checkbacks.incrementAndGet();
                  try {
                    return resolver.resolve(EnvelopeCodec.checkbackRequest(view));
                  } catch (RuntimeException e) {
                    return Resolution.UNKNOWN;
                  }
                }));
  }

  /** Check-backs the proxy routed to this producer. */
  public int checkbacks() {
    return checkbacks.get();
  }

  /** Sends a byte-identical copy of the committed event {@code eventId} (from its journal row). */
  public void resendCopy(String eventId) {
    send(read(eventId));
  }

  /** Sends the committed event {@code eventId} again with another payload (and its own hash). */
  public void sendConflict(String eventId) {
    JournalRow row = read(eventId);
    byte[] other =
        new String(row.getPayload(), StandardCharsets.UTF_8)
            .replace("\"amountCents\":", "\"amountCents\":1")
            .getBytes(StandardCharsets.UTF_8);
    row.setPayload(other);
    row.setPayloadHash(hash(row));
    send(row);
  }

  /** Sends a PaymentSucceeded whose payload is not JSON; returns its eventId. */
  public String sendUndecodable(int n) {
    JournalRow row = new JournalRow();
    row.setEventId("poison-" + n);
    row.setAttemptId(UUID.randomUUID().toString());
    row.setStoreId("rogue");
    row.setEventType(PaymentEvents.PAYMENT_SUCCEEDED);
    row.setEventVersion(1);
    row.setAggregateType(PaymentEvents.AGGREGATE);
    row.setAggregateId("poison-order-" + n);
    row.setAggregateVersion(1);
    row.setBusinessKey("poison-order-" + n);
    row.setDestination(PaymentEvents.TOPIC);
    row.setTag(PaymentEvents.PAYMENT_SUCCEEDED);
    row.setPayload(("}{ not json " + n).getBytes(StandardCharsets.UTF_8));
    row.setPayloadHash(hash(row));
    row.setCreatedAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    send(row);
    return row.getEventId();
  }

  private static String hash(JournalRow r) {
    return PayloadHashes.compute(
        r.getEventId(),
        r.getEventType(),
        r.getEventVersion(),
        r.getAggregateType(),
        r.getAggregateId(),
        r.getAggregateVersion(),
        r.getPayload());
  }

  private void send(JournalRow row) {
    if (plainSends) {
      producer.send(EnvelopeCodec.encode(row));
    } else {
      producer.sendHalf(EnvelopeCodec.encode(row)).commit();
    }
  }

  private JournalRow read(String eventId) {
    return jdbc.queryForObject(
        "SELECT event_id, attempt_id, store_id, event_type, event_version, aggregate_type,"
            + " aggregate_id, aggregate_version, destination, tag, business_key, payload,"
            + " payload_hash, content_type, headers, created_at FROM txmsg_journal"
            + " WHERE event_id = ?",
        (rs, i) -> row(rs),
        eventId);
  }

  private static JournalRow row(ResultSet rs) throws SQLException {
    JournalRow r = new JournalRow();
    r.setEventId(rs.getString("event_id"));
    r.setAttemptId(rs.getString("attempt_id"));
    r.setStoreId(rs.getString("store_id"));
    r.setEventType(rs.getString("event_type"));
    r.setEventVersion(rs.getInt("event_version"));
    r.setAggregateType(rs.getString("aggregate_type"));
    r.setAggregateId(rs.getString("aggregate_id"));
    r.setAggregateVersion(rs.getLong("aggregate_version"));
    r.setDestination(rs.getString("destination"));
    r.setTag(rs.getString("tag"));
    r.setBusinessKey(rs.getString("business_key"));
    r.setPayload(rs.getBytes("payload"));
    r.setPayloadHash(rs.getString("payload_hash"));
    r.setContentType(rs.getString("content_type"));
    r.setHeaders(rs.getString("headers"));
    r.setCreatedAt(rs.getTimestamp("created_at").toInstant());
    return r;
  }

  @Override
  public void close() throws Exception {
    try {
      producer.close();
    } finally {
      transport.close();
    }
  }
}
