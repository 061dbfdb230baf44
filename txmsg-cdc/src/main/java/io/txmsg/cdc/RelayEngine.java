package io.txmsg.cdc;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.txmsg.transport.ProducerChannel;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds and closes the Debezium engine of one lease run ({@link RelayRun}): its properties (the
 * offsets kept in the txmsg database by {@link TxmsgOffsetStore}, never a snapshot, inserts only,
 * plus the log source's own), and its records handed to a {@link ChangeHandler} that sends them on
 * the relay's producer channel.
 */
final class RelayEngine {
  private static final Logger log = LoggerFactory.getLogger(CdcRelay.class);

  private final RelayConfig config;
  private final LogSource logSource;
  private final ProducerChannel channel;

  RelayEngine(RelayConfig config, LogSource logSource, ProducerChannel channel) {
    this.config = config;
    this.logSource = logSource;
    this.channel = channel;
  }

  /**
   * A new engine for {@code run}; {@code done} completes with its failure (or null) when it stops.
   */
  DebeziumEngine<RecordChangeEvent<SourceRecord>> create(
      RelayRun run, CompletableFuture<Throwable> done) {
    Properties p = properties(run);
    // An earlier engine that failed while starting can leave its metrics registered, and the new
    // one would wait a minute for the names (StaleEngineMBeans says why).
    StaleEngineMBeans.remove(config.logicalName());
    return DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
        .using(p)
        .notifying(new ChangeHandler(run, config, channel))
        .using(new OffsetCommitTiming(config.settings().offsetFlushInterval()))
        .using(
            (success, message, error) -> {
              if (error != null) {
                done.complete(error);
              } else if (!success && !run.stopping()) {
                done.complete(new IllegalStateException(message));
              } else {
                done.complete(null);
              }
            })
        .build();
  }

  /** Closes the engine and waits (at most 60 s) until it stopped. */
  void close(DebeziumEngine<?> engine, CompletableFuture<Throwable> done) {
    try {
      engine.close();
    } catch (Exception e) {
      log.warn("cdc engine did not close cleanly storeId={}: {}", config.storeId(), e.toString());
    }
    try {
      done.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn(
          "cdc engine did not stop within 60 s storeId={}: {}", config.storeId(), e.toString());
    }
  }

  private Properties properties(RelayRun run) {
    CdcRelaySettings s = config.settings();
    Properties p = new Properties();
    p.setProperty("name", config.logicalName());
    p.setProperty("topic.prefix", config.logicalName());
    p.setProperty(RelayRun.CONFIG_KEY, run.id());
    p.setProperty("offset.storage", TxmsgOffsetStore.class.getName());
    p.setProperty("offset.flush.interval.ms", Long.toString(s.offsetFlushInterval().toMillis()));
    p.setProperty("offset.flush.timeout.ms", "30000");
    p.setProperty("database.hostname", config.source().host());
    p.setProperty("database.port", Integer.toString(config.source().port()));
    p.setProperty("database.user", config.source().user());
    p.setProperty("database.password", config.source().password());
    // Never a snapshot of the journal: a start without a usable offset begins at the current end
    // of the log; older unsent rows are the reconciler's.
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("poll.interval.ms", Long.toString(s.pollInterval().toMillis()));
    p.setProperty("max.batch.size", Integer.toString(s.maxBatchSize()));
    p.setProperty("max.queue.size", Integer.toString(s.maxQueueSize()));
    p.setProperty("max.queue.size.in.bytes", Long.toString(s.maxQueueBytes()));
    p.setProperty("heartbeat.interval.ms", Long.toString(s.heartbeatInterval().toMillis()));
    // Inserts only: the relay's own SENT updates (and every other update) are not events.
    p.setProperty("skipped.operations", "u,d,t");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("binary.handling.mode", "bytes");
    p.setProperty("record.processing.order", "ORDERED");
    logSource.configure(config, p);
    return p;
  }
}
