package io.txmsg.producer.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.txmsg.api.MeterNames;
import io.txmsg.micrometer.StartedObservation;
import io.txmsg.micrometer.TraceHeaderContexts;
import io.txmsg.producer.ProducerObservations;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;

/**
 * The producer's observations on a Micrometer {@link ObservationRegistry}. {@code txmsg.execute} is
 * a sender observation whose carrier is the row's trace-header map: a tracing bridge's propagating
 * sender handler writes the W3C {@code traceparent} (and {@code tracestate}, baggage) into it.
 * {@code txmsg.publish} and {@code txmsg.checkback} run on background threads (reconciler,
 * check-back) where no trace is current, so they are receiver observations of kind PRODUCER whose
 * getter reads the stored headers: the propagating receiver handler restores the execute span as
 * their parent, and a republish joins the trace of the call that committed the event.
 *
 * <p>Low-cardinality tags: {@code txmsg.topic}, {@code txmsg.event_type}, {@code txmsg.mode} or
 * {@code txmsg.kind}, {@code txmsg.outcome}; the eventId is a high-cardinality value (spans only,
 * never a meter tag). The only producer class besides the metrics that imports Micrometer: without
 * micrometer-observation on the classpath nothing here is loaded. What the consumer's observations
 * share with these (the started observation, the header contexts) lives in txmsg-micrometer.
 */
public final class MicrometerProducerObservations implements ProducerObservations {
  private final ObservationRegistry registry;

  /** Observations on {@code registry}; {@link ObservationRegistry#NOOP} observes nothing. */
  public MicrometerProducerObservations(ObservationRegistry registry) {
    this.registry = registry;
  }

  /**
   * The context's {@link ObservationRegistry} bean, or null when there is none (Spring wiring; kept
   * here so the Spring configuration names no Micrometer type).
   */
  public static ProducerObservations fromBeanFactory(BeanFactory beanFactory) {
    ObservationRegistry registry =
        beanFactory.getBeanProvider(ObservationRegistry.class).getIfAvailable();
    return registry == null ? null : new MicrometerProducerObservations(registry);
  }

  @Override
  public Observed execute(
      String topic,
      String eventType,
      String eventId,
      String mode,
      Map<String, String> traceHeaders) {
    return new Started(
        Observation.createNotStarted(
                MeterNames.OBSERVE_EXECUTE,
                () -> TraceHeaderContexts.sending(traceHeaders),
                registry)
            .contextualName(topic + " execute")
            .lowCardinalityKeyValue("txmsg.topic", topic)
            .lowCardinalityKeyValue("txmsg.event_type", eventType)
            .lowCardinalityKeyValue("txmsg.mode", mode)
            .highCardinalityKeyValue("txmsg.event_id", eventId));
  }

  @Override
  public Observed publish(
      String topic, String eventType, String eventId, String kind, Map<String, String> stored) {
    return new Started(
        Observation.createNotStarted(
                MeterNames.OBSERVE_PUBLISH,
                () -> TraceHeaderContexts.receiving(stored, Kind.PRODUCER),
                registry)
            .contextualName(topic + " publish")
            .lowCardinalityKeyValue("txmsg.topic", topic)
            .lowCardinalityKeyValue("txmsg.event_type", eventType)
            .lowCardinalityKeyValue("txmsg.kind", kind)
            .highCardinalityKeyValue("txmsg.event_id", eventId));
  }

  @Override
  public Observed checkback(
      String topic, String eventType, String eventId, Map<String, String> headers) {
    return new Started(
        Observation.createNotStarted(
                MeterNames.OBSERVE_CHECKBACK,
                () -> TraceHeaderContexts.receiving(headers, Kind.PRODUCER),
                registry)
            .contextualName(topic + " checkback")
            .lowCardinalityKeyValue("txmsg.topic", String.valueOf(topic))
            .lowCardinalityKeyValue("txmsg.event_type", String.valueOf(eventType))
            .highCardinalityKeyValue("txmsg.event_id", String.valueOf(eventId)));
  }

  /** The shared started observation, as the producer's {@link Observed}. */
  private static final class Started extends StartedObservation implements Observed {
    Started(Observation observation) {
      super(observation);
    }
  }
}
