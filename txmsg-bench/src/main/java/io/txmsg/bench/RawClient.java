package io.txmsg.bench;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;

/**
 * Baseline (b): what a careful user writes by hand on rocketmq-client-java (gRPC, the transport
 * txmsg uses): half message, one JDBC transaction with the business row and a journal row, then the
 * half commit; a {@link org.apache.rocketmq.client.apis.producer.TransactionChecker} that reads the
 * journal row by event id. The journal's columns and indexes are those such a user needs (see
 * {@link Sql#rawJournalTable()}). "Database alone" runs exactly the same statements.
 */
final class RawClient implements AutoCloseable {
  private final BenchMain b;
  private final Messages messages;
  final String topic;
  final Producer producer;

  /** Check-backs this producer answered (all of them, COMMIT or UNKNOWN). */
  final AtomicLong checkbacks = new AtomicLong();

  RawClient(BenchMain b, String topic) throws Exception {
    this.b = b;
    this.topic = topic;
    this.messages = new Messages(b.provider);
    this.producer =
        b.provider
            .newProducerBuilder()
            .setClientConfiguration(b.clientConfig)
            .setTopics(topic)
            .setTransactionChecker(this::check)
            .build();
  }

  /**
   * COMMIT when the journal row exists; UNKNOWN otherwise, because the local transaction may still
   * be running (the broker asks again; a real user would answer ROLLBACK after a timeout).
   */
  private TransactionResolution check(MessageView view) {
    checkbacks.incrementAndGet();
    String id = view.getKeys().isEmpty() ? null : view.getKeys().iterator().next();
    if (id == null) {
      return TransactionResolution.UNKNOWN;
    }
    try (Connection c = b.ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT status FROM raw_journal WHERE event_id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? TransactionResolution.COMMIT : TransactionResolution.UNKNOWN;
      }
    } catch (Exception e) {
      return TransactionResolution.UNKNOWN;
    }
  }

  /** Half message, local transaction, half commit; {@code onCommitted} runs between the two. */
  void send(String id, boolean envelope, Runnable onCommitted) throws Exception {
    Transaction tx = producer.beginTransaction();
    producer.send(envelope ? messages.envelope(topic, id, true) : messages.raw(topic, id), tx);
    try {
      localTransaction(b, topic, id);
    } catch (Exception e) {
      tx.rollback();
      throw e;
    }
    if (onCommitted != null) {
      onCommitted.run();
    }
    tx.commit();
  }

  /** The local transaction of (b): business row + journal row, one commit. */
  static void localTransaction(BenchMain b, String topic, String id) throws Exception {
    try (Connection c = b.ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        BenchMain.insertPayment(c, id);
        insertJournal(c, topic, id);
        c.commit();
      } catch (Exception e) {
        c.rollback();
        throw e;
      }
    }
  }

  private static void insertJournal(Connection c, String topic, String id) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO raw_journal (event_id, topic, payload, status, created_at)"
                + " VALUES (?, ?, ?, 'NEW', ?)")) {
      ps.setString(1, id);
      ps.setString(2, topic);
      ps.setString(3, new String(BenchMain.PAYLOAD, StandardCharsets.UTF_8));
      ps.setTimestamp(4, new Timestamp(System.currentTimeMillis()));
      ps.executeUpdate();
    }
  }

  @Override
  public void close() throws Exception {
    producer.close();
  }
}
