package io.txmsg.consumer.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.txmsg.consumer.ConsumerObservations;
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
 * only). Without micrometer-observation on the classpath nothing here is loaded.
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
    ReceiverContext<Map<String, String>> context =
        new ReceiverContext<>(
            (carrier, key) -> carrier == null ? null : carrier.get(key), Kind.CONSUMER);
    context.setCarrier(headers);
    context.setRemoteServiceName("rocketmq");
    Observation o =
        Observation.createNotStarted("txmsg.consume", () -> context, registry)
            .contextualName(topic + " consume")
            .lowCardinalityKeyValue("txmsg.group", group)
            .lowCardinalityKeyValue("txmsg.topic", String.valueOf(topic))
            .lowCardinalityKeyValue("txmsg.event_type", String.valueOf(eventType))
            .lowCardinalityKeyValue("txmsg.replay", Boolean.toString(replay))
            .highCardinalityKeyValue("txmsg.event_id", String.valueOf(eventId));
    o.start();
    Observation.Scope scope = o.openScope();
    return new Observed() {
      private String outcome = "unknown";

      @Override
      public void outcome(String value) {
        outcome = value;
      }

      @Override
      public void error(Throwable error) {
        o.error(error);
      }

      @Override
      public void close() {
        o.lowCardinalityKeyValue("txmsg.outcome", outcome);
        scope.close();
        o.stop();
      }
    };
  }
}
