package io.txmsg.bench;

import io.txmsg.api.Envelope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Baseline (br): what a careful user writes by hand on rocketmq-client (remoting, the protocol of
 * rocketmq-spring and of txmsg's remoting transport): a {@link TransactionMQProducer} whose {@code
 * sendMessageInTransaction} sends the half message, runs {@link
 * TransactionListener#executeLocalTransaction} (the same local transaction as the gRPC (b): the
 * business row and the journal row in one JDBC transaction, {@link RawClient#localTransaction}) and
 * ends the transaction; {@link TransactionListener#checkLocalTransaction} answers from the same
 * journal table ({@code raw_journal}, {@link Sql#rawJournalTable()}). Plaintext, like every
 * variant.
 *
 * <p>With {@code database = false} it is "broker alone (dr)": the same producer and messages, a
 * listener that commits without touching the database.
 */
final class RawRemotingClient implements AutoCloseable {
  private final BenchMain b;
  final String topic;
  private final boolean database;
  final TransactionMQProducer producer;

  /** Check-backs this producer answered (all of them, COMMIT or UNKNOWN). */
  final AtomicLong checkbacks = new AtomicLong();

  /** What {@link #send} hands to the listener: the event id and the hook after the local commit. */
  private record Local(String id, Runnable onCommitted) {}

  RawRemotingClient(BenchMain b, String topic, String group, boolean database) throws Exception {
    this.b = b;
    this.topic = topic;
    this.database = database;
    this.producer = new TransactionMQProducer(group);
    producer.setNamesrvAddr(b.mq.namesrvAddress());
    producer.setUseTLS(false); // the client's default, stated: no variant of the benchmark uses TLS
    producer.setTransactionListener(new Listener());
    producer.start();
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
  }

  private final class Listener implements TransactionListener {
    @Override
    public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
      Local local = (Local) arg;
      if (database) {
        try {
          RawClient.localTransaction(b, topic, local.id());
        } catch (Exception e) {
          return LocalTransactionState.ROLLBACK_MESSAGE;
        }
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
      if (!database) {
        return LocalTransactionState.COMMIT_MESSAGE;
      }
      String id = msg.getUserProperty(Envelope.EVENT_ID);
      if (id == null) {
        return LocalTransactionState.UNKNOW;
      }
      try (Connection c = b.ds.getConnection();
          PreparedStatement ps =
              c.prepareStatement("SELECT status FROM raw_journal WHERE event_id = ?")) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? LocalTransactionState.COMMIT_MESSAGE : LocalTransactionState.UNKNOW;
        }
      } catch (Exception e) {
        return LocalTransactionState.UNKNOW;
      }
    }
  }

  @Override
  public void close() {
    producer.shutdown();
  }
}
