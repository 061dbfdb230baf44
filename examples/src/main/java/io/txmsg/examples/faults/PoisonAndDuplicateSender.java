package io.txmsg.examples.faults;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.Envelope;
import io.txmsg.api.PayloadHashes;
import io.txmsg.examples.events.PaymentEvents;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.message.MessageBuilder;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Plays the broker and a buggy foreign producer with a raw rocketmq-client-java producer:
 * byte-identical copies of committed events (what a broker redelivery looks like), messages whose
 * payload cannot be decoded, and a message reusing a committed eventId with another payload. The
 * topic is a TRANSACTION topic, so each message is a transactional send committed at once.
 *
 * <p>It declares no topics, yet once it has sent to the topic the proxy includes it in the
 * check-back rotation for that topic (ROCKETMQ-FACTS pitfall 4): it then receives check-backs for
 * the payment service's half messages too. So it answers them like any other instance of the
 * service would: from the database, through the application's resolver.
 */
public final class PoisonAndDuplicateSender implements AutoCloseable {
  private final ClientServiceProvider provider = ClientServiceProvider.loadService();
  private final Producer producer;
  private final JdbcTemplate jdbc;

  private final AtomicInteger checkbacks = new AtomicInteger();

  public PoisonAndDuplicateSender(String endpoints, JdbcTemplate jdbc, CheckbackResolver resolver)
      throws ClientException {
    this.jdbc = jdbc;
    this.producer =
        provider
            .newProducerBuilder()
            .setClientConfiguration(
                ClientConfiguration.newBuilder().setEndpoints(endpoints).build())
            .setTransactionChecker(
                view -> {
                  checkbacks.incrementAndGet();
                  try {
                    return TransactionResolution.valueOf(resolver.resolve(request(view)).name());
                  } catch (RuntimeException e) {
                    return TransactionResolution.UNKNOWN;
                  }
                })
            .build();
  }

  /** Check-backs the proxy routed to this producer. */
  public int checkbacks() {
    return checkbacks.get();
  }

  private static CheckbackRequest request(MessageView view) {
    Map<String, String> p = view.getProperties();
    int times = -1;
    try {
      times = Integer.parseInt(p.getOrDefault("TRANSACTION_CHECK_TIMES", "-1").trim());
    } catch (NumberFormatException e) {
      // not reported
    }
    return new CheckbackRequest(
        view.getTopic(),
        p.get(Envelope.EVENT_TYPE),
        p.get(Envelope.EVENT_ID),
        p.get(Envelope.ATTEMPT_ID),
        p.get(Envelope.STORE_ID),
        times,
        Instant.ofEpochMilli(view.getBornTimestamp()),
        view.getMessageId().toString(),
        Map.copyOf(p));
  }

  /** Sends a byte-identical copy of the committed event {@code eventId} (from its journal row). */
  public void resendCopy(String eventId) throws ClientException {
    JournalCopy row = read(eventId);
    send(row.envelope(), row.payload);
  }

  /** Sends the committed event {@code eventId} again with another payload (and its own hash). */
  public void sendConflict(String eventId) throws ClientException {
    JournalCopy row = read(eventId);
    byte[] other =
        new String(row.payload, StandardCharsets.UTF_8)
            .replace("\"amountCents\":", "\"amountCents\":1")
            .getBytes(StandardCharsets.UTF_8);
    Map<String, String> envelope = row.envelope();
    envelope.put(
        Envelope.PAYLOAD_HASH,
        PayloadHashes.compute(
            row.eventId,
            row.eventType,
            row.eventVersion,
            row.aggregateType,
            row.aggregateId,
            row.aggregateVersion,
            other));
    send(envelope, other);
  }

  /** Sends a PaymentSucceeded whose payload is not JSON; returns its eventId. */
  public String sendUndecodable(int n) throws ClientException {
    String eventId = "poison-" + n;
    byte[] body = ("}{ not json " + n).getBytes(StandardCharsets.UTF_8);
    Map<String, String> p = new java.util.HashMap<>();
    p.put(Envelope.EVENT_ID, eventId);
    p.put(Envelope.ATTEMPT_ID, UUID.randomUUID().toString());
    p.put(Envelope.STORE_ID, "rogue");
    p.put(Envelope.EVENT_TYPE, PaymentEvents.PAYMENT_SUCCEEDED);
    p.put(Envelope.EVENT_VERSION, "1");
    p.put(Envelope.AGGREGATE_TYPE, PaymentEvents.AGGREGATE);
    p.put(Envelope.AGGREGATE_ID, "poison-order-" + n);
    p.put(Envelope.AGGREGATE_VERSION, "1");
    p.put(Envelope.BUSINESS_KEY, "poison-order-" + n);
    p.put(
        Envelope.PAYLOAD_HASH,
        PayloadHashes.compute(
            eventId,
            PaymentEvents.PAYMENT_SUCCEEDED,
            1,
            PaymentEvents.AGGREGATE,
            "poison-order-" + n,
            1,
            body));
    p.put(Envelope.ORIGIN_TIME, Long.toString(System.currentTimeMillis()));
    send(p, body);
    return eventId;
  }

  private void send(Map<String, String> properties, byte[] body) throws ClientException {
    MessageBuilder b =
        provider
            .newMessageBuilder()
            .setTopic(PaymentEvents.TOPIC)
            .setTag(properties.get(Envelope.EVENT_TYPE))
            .setKeys(properties.get(Envelope.EVENT_ID))
            .setBody(body);
    properties.forEach(b::addProperty);
    Transaction tx = producer.beginTransaction();
    producer.send(b.build(), tx);
    tx.commit();
  }

  private JournalCopy read(String eventId) {
    return jdbc.queryForObject(
        "SELECT event_id, attempt_id, store_id, event_type, event_version, aggregate_type,"
            + " aggregate_id, aggregate_version, business_key, payload, payload_hash, content_type,"
            + " created_at FROM txmsg_journal WHERE event_id = ?",
        (rs, i) -> new JournalCopy(rs),
        eventId);
  }

  /** What the envelope of a journal row holds (the framework's envelope builder is internal). */
  private static final class JournalCopy {
    final String eventId;
    final String eventType;
    final int eventVersion;
    final String aggregateType;
    final String aggregateId;
    final long aggregateVersion;
    final byte[] payload;
    private final Map<String, String> properties = new java.util.HashMap<>();

    JournalCopy(ResultSet rs) throws SQLException {
      eventId = rs.getString("event_id");
      eventType = rs.getString("event_type");
      eventVersion = rs.getInt("event_version");
      aggregateType = rs.getString("aggregate_type");
      aggregateId = rs.getString("aggregate_id");
      aggregateVersion = rs.getLong("aggregate_version");
      payload = rs.getBytes("payload");
      properties.put(Envelope.EVENT_ID, eventId);
      properties.put(Envelope.ATTEMPT_ID, rs.getString("attempt_id"));
      properties.put(Envelope.STORE_ID, rs.getString("store_id"));
      properties.put(Envelope.EVENT_TYPE, eventType);
      properties.put(Envelope.EVENT_VERSION, Integer.toString(eventVersion));
      properties.put(Envelope.AGGREGATE_TYPE, aggregateType);
      properties.put(Envelope.AGGREGATE_ID, aggregateId);
      properties.put(Envelope.AGGREGATE_VERSION, Long.toString(aggregateVersion));
      properties.put(Envelope.PAYLOAD_HASH, rs.getString("payload_hash"));
      properties.put(
          Envelope.ORIGIN_TIME,
          Long.toString(rs.getTimestamp("created_at").toInstant().toEpochMilli()));
      if (rs.getString("business_key") != null) {
        properties.put(Envelope.BUSINESS_KEY, rs.getString("business_key"));
      }
      if (rs.getString("content_type") != null) {
        properties.put(Envelope.CONTENT_TYPE, rs.getString("content_type"));
      }
    }

    Map<String, String> envelope() {
      return new java.util.HashMap<>(properties);
    }
  }

  @Override
  public void close() throws Exception {
    producer.close();
  }
}
