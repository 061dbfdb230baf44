package io.txmsg.bench;

import io.txmsg.api.Envelope;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * Baselines (ho) and (hor): the transactional outbox a careful user writes by hand, the like for
 * like of txmsg's {@code deliveryMode(OUTBOX)} (issue 16: "a hand-written outbox on the same
 * transport", not the half-message baseline (b)):
 *
 * <ol>
 *   <li>one JDBC transaction: the business row (the same insert as every variant) and an outbox row
 *       with status PENDING ({@code raw_outbox}, {@link Sql#rawOutboxTable()}, index on (status,
 *       created_at) for the relay), one commit;
 *   <li>one synchronous send of a normal message (not a half message, so no check-back);
 *   <li>on SEND_OK, {@code UPDATE raw_outbox SET status = 'SENT' WHERE id = ?} (autocommit, on the
 *       caller's thread: what a hand-written outbox does; txmsg batches this update off the
 *       caller's thread, which is part of what is compared).
 * </ol>
 *
 * A send that fails after the commit is not an error of the business call (the fact is committed,
 * the relay sends the row later), as in txmsg, where {@code execute} returns normally and the
 * reconciler sends the row: it is counted in {@link #unsent} and the row stays PENDING. The relay
 * (a poller on the index) is not run: with the broker healthy it only finds what {@link #unsent}
 * counts, and the report gives that count.
 *
 * <p>The message is the bare one of (b)/(br): the event id as key and as property, the payload.
 * Plaintext on both transports, like every variant.
 */
final class HandWrittenOutbox implements AutoCloseable {
  /** A synchronous send of one transport; true when the broker answered SEND_OK. */
  private interface Sender extends AutoCloseable {
    boolean send(String topic, String id) throws Exception;
  }

  private final BenchMain b;
  final String topic;
  private final Sender sender;

  /** Sends without SEND_OK after the commit: rows left PENDING for the (not running) relay. */
  final AtomicLong unsent = new AtomicLong();

  private final AtomicReference<Exception> firstSendFailure = new AtomicReference<>();

  private HandWrittenOutbox(BenchMain b, String topic, Sender sender) {
    this.b = b;
    this.topic = topic;
    this.sender = sender;
  }

  /** (ho): rocketmq-client-java (gRPC via the proxy), a producer without transaction checker. */
  static HandWrittenOutbox grpc(BenchMain b, String topic) throws Exception {
    Messages messages = new Messages(b.provider);
    Producer p =
        b.provider
            .newProducerBuilder()
            .setClientConfiguration(b.clientConfig) // plaintext, like every gRPC variant
            .setTopics(topic)
            .build();
    return new HandWrittenOutbox(
        b,
        topic,
        new Sender() {
          @Override
          public boolean send(String t, String id) throws Exception {
            p.send(messages.raw(t, id)); // returns a receipt on SEND_OK, throws otherwise
            return true;
          }

          @Override
          public void close() throws Exception {
            p.close();
          }
        });
  }

  /** (hor): rocketmq-client (remoting via the NameServer), a plain {@link DefaultMQProducer}. */
  static HandWrittenOutbox remoting(BenchMain b, String topic, String group) throws Exception {
    DefaultMQProducer p = new DefaultMQProducer(group);
    p.setNamesrvAddr(b.mq.namesrvAddress());
    p.setUseTLS(false); // the client's default, stated: no variant of the benchmark uses TLS
    p.start();
    return new HandWrittenOutbox(
        b,
        topic,
        new Sender() {
          @Override
          public boolean send(String t, String id) throws Exception {
            Message msg = new Message(t, null, id, BenchMain.PAYLOAD);
            msg.putUserProperty(Envelope.EVENT_ID, id);
            SendResult r = p.send(msg); // synchronous; the client's default 2 resends
            return r.getSendStatus() == SendStatus.SEND_OK;
          }

          @Override
          public void close() {
            p.shutdown();
          }
        });
  }

  /** Commit (business row + PENDING outbox row), send, mark SENT. */
  void send(String id) throws Exception {
    localTransaction(id);
    boolean ok;
    try {
      ok = sender.send(topic, id);
    } catch (Exception e) {
      firstSendFailure.compareAndSet(null, e);
      ok = false;
    }
    if (!ok) {
      unsent.incrementAndGet(); // committed: the relay would send it after its delay
      return;
    }
    markSent(id);
  }

  /** The first send that failed, for the report; null when none did. */
  Exception firstSendFailure() {
    return firstSendFailure.get();
  }

  private void localTransaction(String id) throws Exception {
    try (Connection c = b.ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        BenchMain.insertPayment(c, id);
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO raw_outbox (id, topic, payload, status, created_at)"
                    + " VALUES (?, ?, ?, 'PENDING', ?)")) {
          ps.setString(1, id);
          ps.setString(2, topic);
          ps.setString(3, new String(BenchMain.PAYLOAD, StandardCharsets.UTF_8));
          ps.setTimestamp(4, new Timestamp(System.currentTimeMillis()));
          ps.executeUpdate();
        }
        c.commit();
      } catch (Exception e) {
        c.rollback();
        throw e;
      }
    }
  }

  private void markSent(String id) throws Exception {
    try (Connection c = b.ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE raw_outbox SET status = 'SENT' WHERE id = ?")) {
      ps.setString(1, id);
      ps.executeUpdate(); // the pool's connections are autocommit: its own commit
    }
  }

  /** Rows of this baseline's topic still PENDING: what its relay would have to send. */
  long pending() throws Exception {
    return Sql.count(
        b.ds,
        "SELECT COUNT(*) FROM raw_outbox WHERE status = 'PENDING' AND topic = '" + topic + "'");
  }

  @Override
  public void close() throws Exception {
    sender.close();
  }
}
