package io.txmsg.consumer.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.MeterNames;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.consumer.ConsumerMetrics;
import io.txmsg.consumer.ReplayResult;
import io.txmsg.micrometer.MeterCache;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.BeanFactory;

/**
 * The consumer's meters in Micrometer (docs/architecture.md, "Metrics"): {@code txmsg.consume}
 * (group, event_type, outcome), {@code txmsg.consume.latency} and {@code txmsg.consume.age}
 * (group), {@code txmsg.version.gap} (group), {@code txmsg.replay} (result); the names are {@link
 * MeterNames}'. Never an eventId or business key as a tag; meters are cached per tag combination.
 * The only consumer package that imports Micrometer.
 */
public final class MicrometerConsumerMetrics implements ConsumerMetrics {
  private final MeterCache meters;

  public MicrometerConsumerMetrics(MeterRegistry registry) {
    this.meters = new MeterCache(registry);
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
    meters
        .counter(
            MeterNames.CONSUME,
            "Deliveries by outcome",
            "group",
            group,
            "event_type",
            type,
            "outcome",
            result)
        .increment();
    meters
        .timer(MeterNames.CONSUME_LATENCY, "Time to process one delivery", "group", group)
        .record(nanos, TimeUnit.NANOSECONDS);
    if (originTime != null) {
      Duration age = Duration.between(originTime, Instant.now());
      meters
          .timer(
              MeterNames.CONSUME_AGE,
              "Now minus the event's commit time at delivery",
              "group",
              group)
          .record(age.isNegative() ? Duration.ZERO : age);
    }
  }

  @Override
  public void gap(String group) {
    meters
        .counter(MeterNames.VERSION_GAP, "Deliveries held back by a version gap", "group", group)
        .increment();
  }

  @Override
  public void replay(ReplayResult.Status status) {
    meters
        .counter(
            MeterNames.REPLAY,
            "Replayed dead letters by result",
            "result",
            status.name().toLowerCase(Locale.ROOT))
        .increment();
  }
}
