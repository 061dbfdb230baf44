package io.txmsg.cdc;

import io.debezium.engine.spi.OffsetCommitPolicy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * When an engine stores its offsets: right after its first batch of records, then once every {@code
 * offsetFlushInterval}. One instance per engine.
 *
 * <p>Why not Debezium's periodic policy alone: it waits one whole interval from the engine's start
 * before the first write. An engine that starts without an offset (the first start, after {@code
 * txmsg cdc reset}, after "cannot resume") and fails within that interval leaves no position
 * behind, and the next engine starts at the then current end of the log: the inserts committed in
 * between are not relayed (the reconciler's fallback sends them, late). Storing the first position
 * at once leaves only the time before the engine's first record uncovered, which {@link
 * CdcRelay.State#STARTING} already admits.
 */
final class OffsetCommitTiming implements OffsetCommitPolicy {
  private final Duration interval;
  private final AtomicBoolean first = new AtomicBoolean(true);

  OffsetCommitTiming(Duration interval) {
    this.interval = interval;
  }

  @Override
  public boolean performCommit(long recordsSinceLastCommit, Duration timeSinceLastCommit) {
    if (recordsSinceLastCommit > 0 && first.compareAndSet(true, false)) {
      return true;
    }
    return timeSinceLastCommit.compareTo(interval) >= 0;
  }
}
