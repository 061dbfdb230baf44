package io.txmsg.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counters and timers registered once per name and tag combination and cached, so recording does
 * not allocate a builder or look the meter up in the registry. Tags are bounded by the callers
 * (never an eventId or a business key).
 */
public final class MeterCache {
  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();

  public MeterCache(MeterRegistry registry) {
    this.registry = registry;
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * The counter {@code name} with {@code tags} (key, value, key, value, ...), registered on first
   * use.
   */
  public Counter counter(String name, String description, String... tags) {
    return counters.computeIfAbsent(
        key(name, tags),
        k -> Counter.builder(name).description(description).tags(tags).register(registry));
  }

  /**
   * The timer {@code name} with {@code tags}, with a percentile histogram, registered on first use.
   */
  public Timer timer(String name, String description, String... tags) {
    return timers.computeIfAbsent(
        key(name, tags),
        k ->
            Timer.builder(name)
                .description(description)
                .tags(tags)
                .publishPercentileHistogram()
                .register(registry));
  }

  private static String key(String name, String[] tags) {
    // '|' may occur in a RocketMQ topic name, so the parts are separated by NUL.
    return name + '\0' + String.join("\0", tags);
  }
}
