package io.txmsg.bench;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;

/**
 * Baselines (b) and (b+): what a careful user writes by hand on rocketmq-client-java (gRPC, the
 * transport txmsg uses): half message, one JDBC transaction with the business row and a journal
 * row, then the half commit; a {@link org.apache.rocketmq.client.apis.producer.TransactionChecker}
 * that reads the journal row by event id.
 *
 * <p>(b) writes the narrow {@code raw_journal} ({@link Sql#rawJournalTable()}) and records nothing
 * after the commit; "database alone" runs exactly its statements. (b+) writes txmsg's journal shape
 * ({@link HandJournal}) and, once {@code commit} returned, hands the event id to a {@link
 * SentBatcher} that marks it SENT off the sending thread.
 */
final class RawClient implements AutoCloseable {
  private final BenchMain b;
  private final Messages messages;
  final String topic;
  final Producer producer;
  private final JournalKind journal;

  /** (b+): records SENT after the commit; null for (b). */
  final SentBatcher sent;

  /** Check-backs this producer answered (all of them, COMMIT or UNKNOWN). */
  final AtomicLong checkbacks = new AtomicLong();

  /** (b): the narrow journal, nothing recorded after the commit. */
  RawClient(BenchMain b, String topic) throws Exception {
    this(b, topic, false);
  }

  /** (b+) when {@code recordSent}: txmsg's journal shape and the batched SENT update. */
  RawClient(BenchMain b, String topic, boolean recordSent) throws Exception {
    this.b = b;
    this.topic = topic;
    this.messages = new Messages(b.provider);
    this.journal = recordSent ? JournalKind.HAND : JournalKind.RAW;
    this.sent = recordSent ? new SentBatcher(b.ds, topic) : null;
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
    try {
      return journal.exists(b, id) ? TransactionResolution.COMMIT : TransactionResolution.UNKNOWN;
    } catch (Exception e) {
      return TransactionResolution.UNKNOWN;
    }
  }

  /**
   * Half message, local transaction, half commit; {@code onCommitted} runs between the two. (b+)
   * then queues the event id for its SENT update.
   */
  void send(String id, boolean envelope, Runnable onCommitted) throws Exception {
    Transaction tx = producer.beginTransaction();
    producer.send(envelope ? messages.envelope(topic, id, true) : messages.raw(topic, id), tx);
    try {
      journal.localTransaction(b, topic, id);
    } catch (Exception e) {
      tx.rollback();
      throw e;
    }
    if (onCommitted != null) {
      onCommitted.run();
    }
    tx.commit();
    if (sent != null) {
      sent.sent(id);
    }
  }

  /** The local transaction of (b): business row + narrow journal row, one commit. */
  static void localTransaction(BenchMain b, String topic, String id) throws Exception {
    JournalKind.RAW.localTransaction(b, topic, id);
  }

  static void insertJournal(Connection c, String topic, String id) throws Exception {
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
    if (sent != null) {
      sent.close();
    }
  }
}
