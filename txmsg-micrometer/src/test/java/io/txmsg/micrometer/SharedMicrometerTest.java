package io.txmsg.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SharedMicrometerTest {
  @Test
  void aCounterIsRegisteredOncePerNameAndTags() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MeterCache meters = new MeterCache(registry);
    Counter first = meters.counter("txmsg.send", "sends", "destination", "a", "result", "sent");
    first.increment();
    meters.counter("txmsg.send", "sends", "destination", "a", "result", "sent").increment();
    meters.counter("txmsg.send", "sends", "destination", "a|b", "result", "sent").increment();

    assertThat(meters.counter("txmsg.send", "sends", "destination", "a", "result", "sent"))
        .isSameAs(first);
    assertThat(registry.get("txmsg.send").tags("destination", "a").counter().count()).isEqualTo(2);
    assertThat(registry.get("txmsg.send").tags("destination", "a|b").counter().count())
        .isEqualTo(1);
  }

  @Test
  void aTimerHasThePercentileHistogram() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new MeterCache(registry)
        .timer("txmsg.consume.latency", "latency", "group", "g")
        .record(java.time.Duration.ofMillis(5));
    assertThat(registry.get("txmsg.consume.latency").tags("group", "g").timer().count())
        .isEqualTo(1);
  }

  @Test
  void aStartedObservationIsCurrentUntilClosedAndEndsWithItsOutcomeTag() {
    ObservationRegistry registry = ObservationRegistry.create();
    List<Observation.Context> stopped = new ArrayList<>();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }

              @Override
              public void onStop(Observation.Context context) {
                stopped.add(context);
              }
            });
    Observation o = Observation.createNotStarted("txmsg.consume", registry);
    StartedObservation started = new StartedObservation(o);
    assertThat(registry.getCurrentObservation()).isSameAs(o);
    RuntimeException failure = new RuntimeException("handler failed");
    started.outcome("retry");
    started.error(failure);
    started.close();

    assertThat(registry.getCurrentObservation()).isNull();
    assertThat(stopped).hasSize(1);
    assertThat(stopped.get(0).getLowCardinalityKeyValue("txmsg.outcome"))
        .isEqualTo(KeyValue.of("txmsg.outcome", "retry"));
    assertThat(stopped.get(0).getError()).isSameAs(failure);
  }

  @Test
  void anObservationNotToldItsOutcomeEndsUnknown() {
    ObservationRegistry registry = ObservationRegistry.create();
    List<Observation.Context> stopped = new ArrayList<>();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }

              @Override
              public void onStop(Observation.Context context) {
                stopped.add(context);
              }
            });
    new StartedObservation(Observation.createNotStarted("txmsg.execute", registry)).close();
    assertThat(stopped.get(0).getLowCardinalityKeyValue("txmsg.outcome").getValue())
        .isEqualTo("unknown");
  }

  @Test
  void headerContextsWriteAndReadTheCarrierMap() {
    Map<String, String> headers = new HashMap<>();
    var sending = TraceHeaderContexts.sending(headers);
    sending.getSetter().set(sending.getCarrier(), "traceparent", "00-abc-def-01");
    assertThat(headers).containsEntry("traceparent", "00-abc-def-01");
    assertThat(sending.getKind()).isEqualTo(Kind.PRODUCER);

    var receiving = TraceHeaderContexts.receiving(headers, Kind.CONSUMER);
    assertThat(receiving.getGetter().get(receiving.getCarrier(), "traceparent"))
        .isEqualTo("00-abc-def-01");
    assertThat(receiving.getKind()).isEqualTo(Kind.CONSUMER);
    var empty = TraceHeaderContexts.receiving(null, Kind.PRODUCER);
    assertThat(empty.getGetter().get(empty.getCarrier(), "traceparent")).isNull();
  }
}
