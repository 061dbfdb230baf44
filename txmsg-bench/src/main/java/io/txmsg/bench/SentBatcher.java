package io.txmsg.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * How a careful hand-written producer records that its events went out ((b+) and (br+)): the
 * sending thread only queues the event id once the client returned from the commit; one thread of
 * its own marks them SENT in batches, one set-based statement and one commit per batch ({@code
 * UPDATE hand_journal SET status = 'SENT', sent_at, updated_at WHERE status = 'PENDING' AND
 * event_id IN (…)}), up to {@link #BATCH} ids. It lingers up to {@link #LINGER_MILLIS} after the
 * first id of a batch for more: nothing reads SENT until a republisher looks at the row, minutes
 * later, so a careful producer spends no commit per event on it.
 *
 * <p>A batch that fails is counted and its rows stay PENDING (a republisher would send them again);
 * the report gives the count.
 */
final class SentBatcher implements AutoCloseable {
  /** The most ids one statement carries: txmsg's batch of SEND_OK records. */
  static final int BATCH = 200;

  /** How long a batch waits for more ids after its first. */
  static final long LINGER_MILLIS = 50;

  private final DataSource ds;
  private final BlockingQueue<String> queue = new LinkedBlockingQueue<>();
  private final Thread thread;
  private volatile boolean running = true;

  /** Ids queued whose statement has not finished yet (counted before they enter the queue). */
  private final AtomicLong pending = new AtomicLong();

  final AtomicLong marked = new AtomicLong();
  final AtomicLong statements = new AtomicLong();
  final AtomicLong failedBatches = new AtomicLong();
  private final AtomicReference<Exception> firstFailure = new AtomicReference<>();

  SentBatcher(DataSource ds, String name) {
    this.ds = ds;
    this.thread = new Thread(this::run, "sent-batcher-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Queues event {@code id}; never blocks the sending thread. */
  void sent(String id) {
    pending.incrementAndGet();
    queue.add(id);
  }

  /** Waits until every queued id is recorded (at most 60 s); returns the seconds waited. */
  double awaitIdle() throws InterruptedException {
    long t0 = System.nanoTime();
    long until = t0 + TimeUnit.SECONDS.toNanos(60);
    while (pending.get() > 0 && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /** The first failed batch's exception, null when none failed. */
  Exception firstFailure() {
    return firstFailure.get();
  }

  private void run() {
    List<String> batch = new ArrayList<>(BATCH);
    while (running || !queue.isEmpty()) {
      try {
        String first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
        long left;
        while (batch.size() < BATCH && (left = until - System.nanoTime()) > 0) {
          String next = queue.poll(left, TimeUnit.NANOSECONDS);
          if (next == null) {
            break;
          }
          batch.add(next);
          queue.drainTo(batch, BATCH - batch.size());
        }
        record(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        pending.addAndGet(-batch.size());
        batch.clear();
      }
    }
  }

  private void record(List<String> ids) {
    String sql =
        "UPDATE "
            + HandJournal.TABLE
            + " SET status = 'SENT', sent_at = ?, updated_at = ? WHERE status = 'PENDING'"
            + " AND event_id IN ("
            + String.join(", ", Collections.nCopies(ids.size(), "?"))
            + ")";
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        Timestamp now = new Timestamp(System.currentTimeMillis());
        ps.setTimestamp(1, now);
        ps.setTimestamp(2, now);
        for (int i = 0; i < ids.size(); i++) {
          ps.setString(3 + i, ids.get(i));
        }
        int n = ps.executeUpdate();
        c.commit();
        marked.addAndGet(n);
        statements.incrementAndGet();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      failedBatches.incrementAndGet();
      firstFailure.compareAndSet(null, e);
    }
  }

  /** Records what is queued (at most a few seconds), then stops. */
  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(TimeUnit.SECONDS.toMillis(10));
  }
}
