package io.txmsg.cdc;

import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.store.cdc.RelayFence;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the relay's accepted sends as SENT off the send path: one set-based UPDATE per batch,
 * written by its own thread at most {@code sentLinger} after a send, or at once when a batch is
 * full. {@link #flush()} writes everything added so far; the offset store calls it before storing
 * an offset, so a stored offset never lies past a row that was sent but is not SENT.
 *
 * <p>A batch that fails stays for the next flush (never dropped); a batch whose update was fenced
 * (the lease was taken over) is dropped and the run told to stop: those rows stay PENDING and the
 * reconciler's fallback sends them again (consumers drop the duplicates).
 */
final class SentRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SentRecorder.class);

  private final CdcRelayStore store;
  private final RelayFence fence;
  private final int batchSize;
  private final long lingerMillis;
  private final Consumer<String> onFenced;
  private final Map<String, String> pending = new LinkedHashMap<>();
  private final ReentrantLock writing = new ReentrantLock();
  private final ScheduledExecutorService writer;
  private boolean scheduled;

  SentRecorder(
      CdcRelayStore store, RelayFence fence, RelayConfig config, Consumer<String> onFenced) {
    this.store = store;
    this.fence = fence;
    this.batchSize = config.settings().sentBatchSize();
    this.lingerMillis = config.settings().sentLinger().toMillis();
    this.onFenced = onFenced;
    this.writer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "txmsg-cdc-sent-" + fence.storeId());
              t.setDaemon(true);
              return t;
            });
  }

  /** A send the broker accepted; written within the linger time. */
  void add(String eventId, String brokerMessageId) {
    synchronized (pending) {
      pending.put(eventId, brokerMessageId);
      if (pending.size() >= batchSize) {
        scheduled = true;
        writer.execute(this::flushQuietly);
      } else if (!scheduled) {
        scheduled = true;
        writer.schedule(this::flushQuietly, lingerMillis, TimeUnit.MILLISECONDS);
      }
    }
  }

  /** The rows sent but not recorded SENT yet. */
  Set<String> unrecorded() {
    synchronized (pending) {
      return new HashSet<>(pending.keySet());
    }
  }

  /**
   * Writes every send added before this call.
   *
   * @throws LeaseLostException when the update was fenced (those rows were dropped)
   * @throws Exception what the database threw (the rows stay for the next flush)
   */
  void flush() throws Exception {
    writing.lock();
    try {
      // Only what was added before this call: under a steady stream of sends, "until empty" might
      // never end, and the offset store waits for this.
      List<String> due;
      synchronized (pending) {
        scheduled = false;
        due = new ArrayList<>(pending.keySet());
      }
      for (int from = 0; from < due.size(); from += batchSize) {
        Map<String, String> batch = new LinkedHashMap<>();
        synchronized (pending) {
          for (String id : due.subList(from, Math.min(due.size(), from + batchSize))) {
            String messageId = pending.get(id);
            if (messageId != null) {
              batch.put(id, messageId);
            }
          }
        }
        if (batch.isEmpty()) {
          continue;
        }
        int updated = store.markSent(fence, batch);
        boolean fenced = updated < batch.size() && !store.holds(fence);
        Set<String> done = batch.keySet();
        if (updated < batch.size() && !fenced) {
          // The rows this UPDATE wrote are SENT now; the others were settled by the reconciler
          // meanwhile (dropped), or their insert is not visible to a new transaction yet (kept
          // for the next flush: see CdcRelayStore.settledAmong).
          done = store.settledAmong(batch.keySet());
        }
        Set<String> recorded = done;
        synchronized (pending) {
          recorded.forEach(pending::remove);
        }
        if (fenced) {
          onFenced.accept("SENT update of " + batch.size() + " rows fenced");
          throw new LeaseLostException(
              "the relay lease of store "
                  + fence.storeId()
                  + " was taken over; "
                  + batch.size()
                  + " sent rows stay PENDING for the reconciler");
        }
        if (recorded.size() < batch.size()) {
          int left = batch.size() - recorded.size();
          log.debug(
              "{} relayed rows are not visible yet; SENT is written with the next batch", left);
          synchronized (pending) {
            if (!scheduled) {
              scheduled = true;
              writer.schedule(this::flushQuietly, lingerMillis, TimeUnit.MILLISECONDS);
            }
          }
        }
      }
    } finally {
      writing.unlock();
    }
  }

  private void flushQuietly() {
    try {
      flush();
    } catch (LeaseLostException e) {
      log.warn("cdc sent not recorded storeId={}: {}", fence.storeId(), e.getMessage());
    } catch (Exception e) {
      // Kept for the next flush: the offset store flushes before every offset it stores and does
      // not store one while this fails.
      log.warn("cdc sent not recorded yet storeId={}: {}", fence.storeId(), e.toString());
      synchronized (pending) {
        if (!scheduled) {
          scheduled = true;
          writer.schedule(this::flushQuietly, Math.max(lingerMillis, 500), TimeUnit.MILLISECONDS);
        }
      }
    }
  }

  /** Stops the writer thread; call {@link #flush()} first to write the last batch. */
  @Override
  public void close() {
    writer.shutdownNow();
  }
}
