package io.txmsg.rocketmq;

import io.txmsg.api.Envelope;
import io.txmsg.store.JournalMapper;
import io.txmsg.store.StoreTransactions;
import io.txmsg.store.TxmsgStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery confirmation: the store's confirm group ({@code txmsg-confirm-<storeId>}) consumes the
 * store's topics and marks the rows of messages carrying this store id SENT, in batches, acking the
 * batch's messages only after its UPDATE committed. A message that reached the topic is what
 * "delivered" means here: not the proxy accepting a oneway commit.
 *
 * <p>One {@link SimpleConsumer} per topic (same group, each subscribed to its topic only), each
 * with one receiver thread that takes up to {@value #MAX_RECEIVE} messages per call: one UPDATE per
 * batch and no thread blocked per message. Why not a push consumer: its listener answers per
 * message, which held one consumption thread per message for the flush interval and capped the
 * confirmation rate below the producer's (the backlog then aged into needless republishes). Why one
 * consumer per topic: a simple consumer's receive round-robins its topics, and a receive on an idle
 * topic long-polls for seconds while the busy topic waits. If the UPDATE fails, the batch is not
 * acked and the broker hands it out again after {@link #INVISIBLE}; marking SENT is idempotent, so
 * a redelivered or duplicated message is harmless.
 */
final class DeliveryConfirmer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeliveryConfirmer.class);

  /** Largest receive batch: the proxy's long-polling batch and the push consumer's default. */
  static final int MAX_RECEIVE = 32;

  /** How long a received, unacked message stays hidden before the broker hands it out again. */
  static final Duration INVISIBLE = Duration.ofSeconds(30);

  /**
   * Long-poll wait of one receive. The proxy raises anything shorter to 5 s and refuses a poll
   * whose deadline (this + the request timeout) leaves less than that.
   */
  private static final Duration AWAIT = Duration.ofSeconds(10);

  private final StoreTransactions storeTx;
  private final TxMessagingSettings settings;
  private final List<SimpleConsumer> consumers = new ArrayList<>();
  private final List<Thread> receivers = new ArrayList<>();
  private volatile boolean running = true;

  DeliveryConfirmer(DataSource dataSource, TxmsgStore store, TxMessagingSettings settings) {
    this.storeTx = new StoreTransactions(dataSource, store);
    this.settings = settings;
  }

  void start(ClientServiceProvider provider, ClientConfiguration config) throws Exception {
    try {
      for (String topic : settings.topics()) {
        SimpleConsumer consumer =
            provider
                .newSimpleConsumerBuilder()
                .setClientConfiguration(config)
                .setConsumerGroup(settings.confirmGroup())
                .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .setAwaitDuration(AWAIT)
                .build();
        consumers.add(consumer);
        Thread t =
            new Thread(
                () -> receiveLoop(consumer, topic),
                "txmsg-confirm-" + settings.storeId() + "-" + topic);
        t.setDaemon(true);
        receivers.add(t);
      }
    } catch (Exception e) {
      close();
      throw e;
    }
    receivers.forEach(Thread::start);
  }

  private void receiveLoop(SimpleConsumer consumer, String topic) {
    int perReceive = Math.min(MAX_RECEIVE, settings.confirmBatchSize());
    long flushNanos = settings.confirmFlushInterval().toNanos();
    while (running) {
      try {
        List<MessageView> batch = new ArrayList<>(consumer.receive(perReceive, INVISIBLE));
        // A full receive means more is waiting: fill the batch up to its size or flush interval.
        long until = System.nanoTime() + flushNanos;
        List<MessageView> last = batch;
        while (running
            && last.size() == perReceive
            && batch.size() + perReceive <= settings.confirmBatchSize()
            && System.nanoTime() < until) {
          last = consumer.receive(perReceive, INVISIBLE);
          batch.addAll(last);
        }
        if (!batch.isEmpty()) {
          confirm(consumer, batch);
        }
      } catch (Exception e) {
        if (!running) {
          return;
        }
        // Unacked messages come back after INVISIBLE; nothing is lost by waiting.
        log.warn(
            "confirm group {} topic {}: {} (retrying in 1 s)",
            settings.confirmGroup(),
            topic,
            e.toString());
        sleepQuietly(1000);
      }
    }
  }

  private void confirm(SimpleConsumer consumer, List<MessageView> batch) {
    List<String> ids = new ArrayList<>(batch.size());
    for (MessageView view : batch) {
      Map<String, String> p = view.getProperties();
      String eventId = p.get(Envelope.EVENT_ID);
      // Another store's (or a foreign) message is not ours to confirm: acked without an update.
      if (eventId != null && settings.storeId().equals(p.get(Envelope.STORE_ID))) {
        ids.add(eventId);
      }
    }
    if (!ids.isEmpty()) {
      try {
        int n = storeTx.run(JournalMapper.class, m -> m.markSent(ids));
        log.debug("confirmed {} of {} delivered events", n, ids.size());
      } catch (Exception e) {
        log.warn(
            "confirmation of {} events not recorded (redelivered in {}): {}",
            ids.size(),
            INVISIBLE,
            e.toString());
        return;
      }
    }
    for (MessageView view : batch) {
      consumer
          .ackAsync(view)
          .whenComplete(
              (ok, err) -> {
                if (err != null) {
                  // Redelivered after INVISIBLE and confirmed again: harmless.
                  log.debug("ack of {} failed: {}", view.getMessageId(), err.toString());
                }
              });
    }
  }

  private static void sleepQuietly(long ms) {
    try {
      TimeUnit.MILLISECONDS.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws Exception {
    running = false;
    // Closing the consumers ends their pending long polls; the receivers then see !running.
    Exception first = null;
    for (SimpleConsumer c : consumers) {
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    for (Thread t : receivers) {
      t.join(2000);
    }
    if (first != null) {
      throw first;
    }
  }
}
