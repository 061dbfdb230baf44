package io.txmsg.examples.app;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import java.util.Locale;

/**
 * Counts every consume outcome as the Micrometer counter {@code demo.consume} (tags group,
 * event_type, outcome: the tags of the framework's own {@code txmsg.consume}, under another name so
 * the two never add up in one registry). Used for the progress line and the duplicate count (an
 * absorbed duplicate leaves no row in the database, by design).
 */
public final class ConsumeMetrics implements ConsumeListener {
  private final MeterRegistry registry;

  public ConsumeMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void onOutcome(String group, String eventType, String eventId, ConsumeOutcome outcome) {
    Counter.builder("demo.consume")
        .tag("group", group)
        .tag("event_type", eventType == null ? "unknown" : eventType)
        .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
        .register(registry)
        .increment();
  }

  /** The sum over event types of one group's outcome (null group = every group). */
  public static long count(MeterRegistry registry, String group, ConsumeOutcome outcome) {
    return (long)
        registry
            .find("demo.consume")
            .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
            .counters()
            .stream()
            .filter(c -> group == null || group.equals(c.getId().getTag("group")))
            .mapToDouble(Counter::count)
            .sum();
  }
}
