package io.txmsg.bench;

import io.txmsg.api.Envelope;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Baselines (br) and (br+): what a careful user writes by hand on rocketmq-client (remoting, the
 * protocol of rocketmq-spring and of txmsg's remoting transport): a {@link TransactionMQProducer}
 * whose {@code sendMessageInTransaction} sends the half message, runs {@link
 * TransactionListener#executeLocalTransaction} (the business row and the journal row in one JDBC
 * transaction, as the gRPC (b)/(b+)) and ends the transaction; {@link
 * TransactionListener#checkLocalTransaction} answers from the same journal table. Plaintext, like
 * every variant.
 *
 * <p>(br) writes the narrow {@code raw_journal}; (br+) writes txmsg's journal shape and, once
 * {@code sendMessageInTransaction} returned COMMIT, hands the event id to a {@link SentBatcher}.
 * With {@link JournalKind#NONE} it is "broker alone (dr)": the same producer and messages, a
 * listener that commits without touching the database.
 */
final class RawRemotingClient implements AutoCloseable {
  private final BenchMain b;
  final String topic;
  private final JournalKind journal;
  final TransactionMQProducer producer;

  /** (br+): records SENT after the end-transaction; null otherwise. */
  final SentBatcher sent;

  /** Check-backs this producer answered (all of them, COMMIT or UNKNOWN). */
  final AtomicLong checkbacks = new AtomicLong();

  /** What {@link #send} hands to the listener: the event id and the hook after the local commit. */
  private record Local(String id, Runnable onCommitted) {}

  /** (br) with {@code database}, else (dr). */
  RawRemotingClient(BenchMain b, String topic, String group, boolean database) throws Exception {
    this(b, topic, group, database ? JournalKind.RAW : JournalKind.NONE, false);
  }

  RawRemotingClient(
      BenchMain b, String topic, String group, JournalKind journal, boolean recordSent)
      throws Exception {
    this.b = b;
    this.topic = topic;
    this.journal = journal;
    this.sent = recordSent ? new SentBatcher(b.ds, topic) : null;
    this.producer = new TransactionMQProducer(group);
    producer.setNamesrvAddr(b.mq.namesrvAddress());
    producer.setUseTLS(false); // the client's default, stated: no variant of the benchmark uses TLS
    producer.setTransactionListener(new Listener());
    producer.start();
  }

  /** (br+): txmsg's journal shape and the batched SENT update. */
  static RawRemotingClient withSent(BenchMain b, String topic, String group) throws Exception {
    return new RawRemotingClient(b, topic, group, JournalKind.HAND, true);
  }

  /** Half message, local transaction, end transaction; {@code onCommitted} runs between the two. */
  void send(String id, Runnable onCommitted) throws Exception {
    Message msg = new Message(topic, null, id, BenchMain.PAYLOAD);
    msg.putUserProperty(Envelope.EVENT_ID, id);
    TransactionSendResult r = producer.sendMessageInTransaction(msg, new Local(id, onCommitted));
    if (r.getLocalTransactionState() != LocalTransactionState.COMMIT_MESSAGE) {
      throw new IllegalStateException(
          "half message "
              + r.getSendStatus()
              + ", local transaction "
              + r.getLocalTransactionState());
    }
    if (sent != null) {
      sent.sent(id);
    }
  }

  private final class Listener implements TransactionListener {
    @Override
    public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
      Local local = (Local) arg;
      try {
        journal.localTransaction(b, topic, local.id());
      } catch (Exception e) {
        return LocalTransactionState.ROLLBACK_MESSAGE;
      }
      if (local.onCommitted() != null) {
        local.onCommitted().run();
      }
      return LocalTransactionState.COMMIT_MESSAGE;
    }

    /**
     * COMMIT when the journal row exists; UNKNOWN otherwise, because the local transaction may
     * still be running (the broker asks again), as the gRPC (b) answers.
     */
    @Override
    public LocalTransactionState checkLocalTransaction(MessageExt msg) {
      checkbacks.incrementAndGet();
      String id = msg.getUserProperty(Envelope.EVENT_ID);
      if (id == null) {
        return LocalTransactionState.UNKNOW;
      }
      try {
        return journal.exists(b, id)
            ? LocalTransactionState.COMMIT_MESSAGE
            : LocalTransactionState.UNKNOW;
      } catch (Exception e) {
        return LocalTransactionState.UNKNOW;
      }
    }
  }

  @Override
  public void close() throws Exception {
    producer.shutdown();
    if (sent != null) {
      sent.close();
    }
  }
}
