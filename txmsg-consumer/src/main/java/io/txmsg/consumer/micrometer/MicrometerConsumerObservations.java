package io.txmsg.consumer.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.txmsg.api.MeterNames;
import io.txmsg.consumer.ConsumerObservations;
import io.txmsg.micrometer.StartedObservation;
import io.txmsg.micrometer.TraceHeaderContexts;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;

/**
 * The consumer's observation {@code txmsg.consume} on a Micrometer {@link ObservationRegistry}: a
 * receiver observation of kind CONSUMER whose getter reads the event's application headers, so a
 * tracing bridge's propagating receiver handler restores the producer's {@code traceparent} as the
 * parent of the span around the handler (and makes it current: spans the handler opens are its
 * children).
 *
 * <p>Low-cardinality tags: {@code txmsg.group}, {@code txmsg.topic}, {@code txmsg.event_type},
 * {@code txmsg.replay}, {@code txmsg.outcome}; the eventId is a high-cardinality value (spans
 * only). Without micrometer-observation on the classpath nothing here is loaded. What the
 * producer's observations share with this one lives in txmsg-micrometer.
 */
public final class MicrometerConsumerObservations implements ConsumerObservations {
  private final ObservationRegistry registry;

  /** Observations on {@code registry}; {@link ObservationRegistry#NOOP} observes nothing. */
  public MicrometerConsumerObservations(ObservationRegistry registry) {
    this.registry = registry;
  }

  /**
   * The context's {@link ObservationRegistry} bean, or null when there is none (Spring wiring; kept
   * here so the Spring configuration names no Micrometer type).
   */
  public static ConsumerObservations fromBeanFactory(BeanFactory beanFactory) {
    ObservationRegistry registry =
        beanFactory.getBeanProvider(ObservationRegistry.class).getIfAvailable();
    return registry == null ? null : new MicrometerConsumerObservations(registry);
  }

  @Override
  public Observed consume(
      String group,
      String topic,
      String eventType,
      String eventId,
      boolean replay,
      Map<String, String> headers) {
    return new Started(
        Observation.createNotStarted(
                MeterNames.OBSERVE_CONSUME,
                () -> TraceHeaderContexts.receiving(headers, Kind.CONSUMER),
                registry)
            .contextualName(topic + " consume")
            .lowCardinalityKeyValue("txmsg.group", group)
            .lowCardinalityKeyValue("txmsg.topic", String.valueOf(topic))
            .lowCardinalityKeyValue("txmsg.event_type", String.valueOf(eventType))
            .lowCardinalityKeyValue("txmsg.replay", Boolean.toString(replay))
            .highCardinalityKeyValue("txmsg.event_id", String.valueOf(eventId)));
  }

  /** The shared started observation, as the consumer's {@link Observed}. */
  private static final class Started extends StartedObservation implements Observed {
    Started(Observation observation) {
      super(observation);
    }
  }
}
