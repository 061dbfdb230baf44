package io.txmsg.producer;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.store.journal.Journal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the broker's acknowledgements, in batches on a thread of its own, so that the caller of
 * {@code execute} does not pay a second commit: the SEND_OK of immediate OUTBOX-style sends and,
 * under {@link DeliveryConfirmation#PROXY_ACK}, the accepted commit of a half message. Under {@link
 * DeliveryConfirmation#onBrokerAck()} confirmation the rows become SENT; under {@link
 * DeliveryConfirmation#CONSUMER} they stay PENDING for the confirm group and their next_retry_at
 * moves to now + republishAfter. One transaction per queued batch, one set-based statement per
 * {@code sentBatchSize} rows.
 *
 * <p>Losing a record is safe, never silent data loss: a row whose SEND_OK was not recorded (queue
 * full, database error, process killed) stays PENDING and the reconciler sends it again after
 * {@code publishAfter}, a duplicate that consumers absorb.
 */
final class SentRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SentRecorder.class);
  private static final int BATCH = 200;

  private record Sent(String eventId, String messageId) {}

  private final BlockingQueue<Sent> queue = new ArrayBlockingQueue<>(10_000);
  private final Journal journal;
  private final TxProducerSettings settings;
  private final Thread thread;
  private volatile boolean running = true;

  SentRecorder(Journal journal, TxProducerSettings settings) {
    this.journal = journal;
    this.settings = settings;
    this.thread = new Thread(this::run, "txmsg-sent-" + settings.storeId());
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues the SEND_OK of one row; never blocks the caller. */
  void sent(String eventId, String messageId) {
    if (!queue.offer(new Sent(eventId, messageId))) {
      log.debug("sent-record queue full; eventId={} is sent again by the reconciler", eventId);
    }
  }

  private void run() {
    List<Sent> batch = new ArrayList<>(BATCH);
    while (running || !queue.isEmpty()) {
      try {
        Sent first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, BATCH - 1);
        record(batch);
      } catch (InterruptedException e) {
        if (!running) {
          Thread.currentThread().interrupt();
          return;
        }
      } finally {
        batch.clear();
      }
    }
  }

  private void record(List<Sent> batch) {
    boolean sentOnAck = settings.confirmation().onBrokerAck();
    long republishAfter = settings.republishAfter().toMillis();
    Map<String, String> sent = new LinkedHashMap<>();
    for (Sent s : batch) {
      sent.put(s.eventId(), s.messageId());
    }
    try {
      journal.recordSendOks(sent, sentOnAck, republishAfter, settings.sentBatchSize());
    } catch (Exception e) {
      log.warn(
          "SEND_OK of {} rows not recorded (the reconciler sends them again): {}",
          batch.size(),
          e.toString());
    }
  }

  /** Records what is queued (waiting at most a few seconds), then stops. */
  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(Duration.ofSeconds(5).toMillis());
  }
}
