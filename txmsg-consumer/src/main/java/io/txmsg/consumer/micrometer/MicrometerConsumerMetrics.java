package io.txmsg.consumer.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.consumer.ConsumerMetrics;
import io.txmsg.consumer.ReplayResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.BeanFactory;

/**
 * The consumer's meters in Micrometer (docs/architecture.md, "Metrics"): {@code txmsg.consume}
 * (group, event_type, outcome), {@code txmsg.consume.latency} and {@code txmsg.consume.age}
 * (group), {@code txmsg.version.gap} (group), {@code txmsg.replay} (result). Never an eventId or
 * business key as a tag; meters are cached per tag combination. The only consumer package that
 * imports Micrometer.
 */
public final class MicrometerConsumerMetrics implements ConsumerMetrics {
  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();

  public MicrometerConsumerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * The metrics of the application context's {@link MeterRegistry} bean, or {@link
   * ConsumerMetrics#NONE} when it has none. Called by the Spring wiring only when Micrometer is on
   * the classpath.
   */
  public static ConsumerMetrics fromBeanFactory(BeanFactory beanFactory) {
    MeterRegistry registry = beanFactory.getBeanProvider(MeterRegistry.class).getIfAvailable();
    return registry == null ? ConsumerMetrics.NONE : new MicrometerConsumerMetrics(registry);
  }

  @Override
  public void consumed(
      String group, String eventType, ConsumeOutcome outcome, long nanos, Instant originTime) {
    String type = eventType == null ? "unknown" : eventType;
    String result = outcome.name().toLowerCase(Locale.ROOT);
    counters
        .computeIfAbsent(
            "consume|" + group + "|" + type + "|" + result,
            k ->
                Counter.builder("txmsg.consume")
                    .description("Deliveries by outcome")
                    .tag("group", group)
                    .tag("event_type", type)
                    .tag("outcome", result)
                    .register(registry))
        .increment();
    timer("txmsg.consume.latency", group, "Time to process one delivery")
        .record(nanos, TimeUnit.NANOSECONDS);
    if (originTime != null) {
      Duration age = Duration.between(originTime, Instant.now());
      timer("txmsg.consume.age", group, "Now minus the event's commit time at delivery")
          .record(age.isNegative() ? Duration.ZERO : age);
    }
  }

  @Override
  public void gap(String group) {
    counters
        .computeIfAbsent(
            "gap|" + group,
            k ->
                Counter.builder("txmsg.version.gap")
                    .description("Deliveries held back by a version gap")
                    .tag("group", group)
                    .register(registry))
        .increment();
  }

  @Override
  public void replay(ReplayResult.Status status) {
    String result = status.name().toLowerCase(Locale.ROOT);
    counters
        .computeIfAbsent(
            "replay|" + result,
            k ->
                Counter.builder("txmsg.replay")
                    .description("Replayed dead letters by result")
                    .tag("result", result)
                    .register(registry))
        .increment();
  }

  private Timer timer(String name, String group, String description) {
    return timers.computeIfAbsent(
        name + "|" + group,
        k ->
            Timer.builder(name)
                .description(description)
                .tag("group", group)
                .publishPercentileHistogram()
                .register(registry));
  }
}
