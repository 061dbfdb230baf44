package io.txmsg.producer;

import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.PendingByDestination;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds {@link ProducerMetrics#journalBacklog} per destination. The values come from ONE indexed
 * query (status, next_retry_at) run at a fixed interval by {@link #refresh}, never per scrape: a
 * scrape storm must not become a database storm.
 */
final class JournalGauges {
  private static final Logger log = LoggerFactory.getLogger(JournalGauges.class);

  private final Journal journal;
  private final ProducerMetrics metrics;
  private final Set<String> destinations;

  JournalGauges(Journal journal, ProducerMetrics metrics, Set<String> destinations) {
    this.journal = journal;
    this.metrics = metrics;
    this.destinations = new HashSet<>(destinations);
    destinations.forEach(d -> metrics.journalBacklog(d, 0, 0)); // visible before the first query
  }

  void refresh() {
    try {
      List<PendingByDestination> rows = journal.pendingByDestination();
      Set<String> empty = new HashSet<>(destinations);
      for (PendingByDestination r : rows) {
        destinations.add(r.getDestination());
        empty.remove(r.getDestination());
        metrics.journalBacklog(
            r.getDestination(), r.getPending(), Math.max(0, r.getOldestAgeMillis() / 1000));
      }
      empty.forEach(d -> metrics.journalBacklog(d, 0, 0));
    } catch (Exception e) {
      // Stale gauges are better than none; the next interval tries again.
      log.warn("journal gauges not refreshed: {}", e.toString());
    }
  }
}
