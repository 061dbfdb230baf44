package io.txmsg.rocketmq;

import io.txmsg.api.Envelope;
import io.txmsg.store.JournalMapper;
import io.txmsg.store.StoreTransactions;
import io.txmsg.store.TxmsgStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery confirmation: the store's confirm group ({@code txmsg-confirm-<storeId>}) consumes the
 * store's topics and marks the rows of messages carrying this store id SENT, in batches, acking
 * each message only after the batch's UPDATE committed. A message that reached the topic is what
 * "delivered" means here: not the proxy accepting a oneway commit.
 */
final class DeliveryConfirmer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeliveryConfirmer.class);

  private final StoreTransactions storeTx;
  private final TxMessagingSettings settings;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Thread flusher;
  private volatile boolean running = true;
  private PushConsumer consumer;

  private record Pending(String eventId, CompletableFuture<Void> done) {}

  DeliveryConfirmer(DataSource dataSource, TxmsgStore store, TxMessagingSettings settings) {
    this.storeTx = new StoreTransactions(dataSource, store);
    this.settings = settings;
    this.flusher = new Thread(this::flushLoop, "txmsg-confirm-flusher-" + settings.storeId());
    this.flusher.setDaemon(true);
  }

  void start(ClientServiceProvider provider, ClientConfiguration config) throws Exception {
    flusher.start();
    Map<String, FilterExpression> subscriptions = new HashMap<>();
    for (String topic : settings.topics()) {
      subscriptions.put(topic, FilterExpression.SUB_ALL);
    }
    consumer =
        provider
            .newPushConsumerBuilder()
            .setClientConfiguration(config)
            .setConsumerGroup(settings.confirmGroup())
            .setSubscriptionExpressions(subscriptions)
            .setConsumptionThreadCount(Math.max(4, settings.confirmBatchSize() / 4))
            .setMessageListener(this::onMessage)
            .build();
  }

  private ConsumeResult onMessage(MessageView view) {
    Map<String, String> p = view.getProperties();
    String eventId = p.get(Envelope.EVENT_ID);
    if (eventId == null || !settings.storeId().equals(p.get(Envelope.STORE_ID))) {
      return ConsumeResult.SUCCESS; // another store's (or a foreign) message: not ours to confirm
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    queue.add(new Pending(eventId, done));
    try {
      done.get(30, TimeUnit.SECONDS);
      return ConsumeResult.SUCCESS;
    } catch (Exception e) {
      log.warn(
          "confirmation not recorded eventId={}: {} (redelivered later)", eventId, e.toString());
      return ConsumeResult.FAILURE;
    }
  }

  private void flushLoop() {
    long waitMs = Math.max(1, settings.confirmFlushInterval().toMillis());
    while (running) {
      List<Pending> batch = new ArrayList<>();
      try {
        Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        while (batch.size() < settings.confirmBatchSize()) {
          long left = until - System.nanoTime();
          Pending next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : queue.poll();
          if (next == null) {
            break;
          }
          batch.add(next);
        }
        markSent(batch);
        batch.forEach(b -> b.done().complete(null));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        batch.forEach(b -> b.done().completeExceptionally(e));
        return;
      } catch (Exception e) {
        batch.forEach(b -> b.done().completeExceptionally(e));
      }
    }
  }

  private void markSent(List<Pending> batch) throws Exception {
    List<String> ids = new ArrayList<>(batch.size());
    batch.forEach(b -> ids.add(b.eventId()));
    int n = storeTx.run(JournalMapper.class, m -> m.markSent(ids));
    log.debug("confirmed {} of {} delivered events", n, ids.size());
  }

  @Override
  public void close() throws Exception {
    running = false;
    if (consumer != null) {
      consumer.close();
    }
    flusher.interrupt();
  }
}
