package io.txmsg.micrometer;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.util.Map;

/**
 * Observation contexts whose carrier is a map of trace headers (the event's application headers or
 * the journal row's stored ones): a tracing bridge's propagating handlers write the W3C {@code
 * traceparent} (and {@code tracestate}, baggage) into a sender's map and restore the parent span
 * from a receiver's.
 */
public final class TraceHeaderContexts {
  /** The remote service every txmsg observation talks to. */
  static final String REMOTE_SERVICE = "rocketmq";

  private TraceHeaderContexts() {}

  /** A sender context of kind PRODUCER that writes the trace context into {@code headers}. */
  public static SenderContext<Map<String, String>> sending(Map<String, String> headers) {
    SenderContext<Map<String, String>> context =
        new SenderContext<>(
            (carrier, key, value) -> {
              if (carrier != null) {
                carrier.put(key, value);
              }
            },
            Kind.PRODUCER);
    context.setCarrier(headers);
    context.setRemoteServiceName(REMOTE_SERVICE);
    return context;
  }

  /** A receiver context of {@code kind} whose parent is read from {@code headers} (may be null). */
  public static ReceiverContext<Map<String, String>> receiving(
      Map<String, String> headers, Kind kind) {
    ReceiverContext<Map<String, String>> context =
        new ReceiverContext<>((carrier, key) -> carrier == null ? null : carrier.get(key), kind);
    context.setCarrier(headers);
    context.setRemoteServiceName(REMOTE_SERVICE);
    return context;
  }
}
