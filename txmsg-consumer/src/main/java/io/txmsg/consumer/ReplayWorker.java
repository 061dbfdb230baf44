package io.txmsg.consumer;

import io.txmsg.api.LogSafe;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.ReplayRequestRow;
import io.txmsg.store.consume.ReplayRequests;
import io.txmsg.store.consume.ReplayStatus;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the replay requests operators write with {@code txmsg replay}: claims a waiting request of
 * one of this application's groups (REQUESTED → RUNNING, so one instance runs it), replays its dead
 * letters through the handler pipeline in aggregate-version order at the requested rate, canary
 * first, stops when failures pass the threshold, and writes the counts and the outcome to the audit
 * row. Rows it did not replay go back to PARKED. It never sends anything to a topic.
 */
final class ReplayWorker {
  private static final Logger log = LoggerFactory.getLogger(ReplayWorker.class);
  private static final int BATCH = 100;

  /** Replays one dead letter (TxConsumers#replay). */
  @FunctionalInterface
  interface Replayer {
    ReplayResult replay(String group, String eventId, String requestId);
  }

  private final ReplayRequests requests;
  private final List<String> groups;
  private final Replayer replayer;
  private final ConsumerMetrics metrics;

  ReplayWorker(
      ReplayRequests requests, List<String> groups, Replayer replayer, ConsumerMetrics metrics) {
    this.metrics = metrics;
    this.requests = requests;
    this.groups = List.copyOf(groups);
    this.replayer = replayer;
  }

  /** Runs every waiting request this instance can claim; returns how many it ran. */
  int runOnce() throws Exception {
    if (groups.isEmpty()) {
      return 0;
    }
    int ran = 0;
    for (String id : requests.waiting(groups)) {
      if (requests.claim(id)) {
        run(requests.find(id));
        ran++;
      }
    }
    return ran;
  }

  private void run(ReplayRequestRow r) throws Exception {
    String id = r.getRequestId();
    double maxRatio = r.getMaxFailureRatio() == null ? 1.0 : r.getMaxFailureRatio().doubleValue();
    long interval = TimeUnit.SECONDS.toNanos(1) / Math.max(1, r.getRatePerSecond());
    long start = System.nanoTime();
    int ok = 0;
    int failed = 0;
    String stop = null;
    Set<String> seen = new HashSet<>();
    log.info(
        "replay started requestId={} group={} selected={} rate={}/s canary={} operator={}",
        id,
        r.getConsumerGroup(),
        r.getSelected(),
        r.getRatePerSecond(),
        r.getCanary(),
        r.getOperator());
    outer:
    while (true) {
      List<DeadLetterRow> rows = requests.requestedRows(id, BATCH);
      rows.removeIf(d -> !seen.add(d.getEventId()));
      if (rows.isEmpty()) {
        break;
      }
      for (DeadLetterRow d : rows) {
        pace(start + (long) (ok + failed) * interval);
        ReplayResult result = replayer.replay(r.getConsumerGroup(), d.getEventId(), id);
        metrics.replay(result.status());
        if (result.status() == ReplayResult.Status.REPLAYED
            || result.status() == ReplayResult.Status.SKIPPED_STALE
            || result.status() == ReplayResult.Status.DUPLICATE) {
          ok++;
        } else {
          failed++;
          log.warn(
              "replay failed requestId={} group={} eventId={} status={}: {}",
              id,
              LogSafe.escape(r.getConsumerGroup()),
              LogSafe.escape(d.getEventId()),
              result.status(),
              result.message());
        }
        int done = ok + failed;
        requests.progress(id, ok, failed);
        if (r.getCanary() > 0 && done == r.getCanary() && failed > 0) {
          stop = "canary failed: " + failed + " of the first " + done;
          break outer;
        }
        if (done >= Math.max(1, r.getCanary()) && (double) failed / done > maxRatio) {
          stop = "failure ratio " + failed + "/" + done + " above " + maxRatio;
          break outer;
        }
      }
    }
    ReplayStatus status = stop == null ? ReplayStatus.DONE : ReplayStatus.STOPPED;
    requests.finish(id, status, stop);
    double seconds = (System.nanoTime() - start) / 1e9;
    log.info(
        "replay finished requestId={} status={} succeeded={} failed={} seconds={} stoppedReason={}",
        id,
        status,
        ok,
        failed,
        String.format(java.util.Locale.ROOT, "%.1f", seconds),
        stop);
  }

  private static void pace(long deadlineNanos) throws InterruptedException {
    long wait = deadlineNanos - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
