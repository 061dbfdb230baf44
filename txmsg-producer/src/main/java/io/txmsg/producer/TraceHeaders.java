package io.txmsg.producer;

import io.txmsg.api.TxMessage;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The trace headers a tracing bridge injected at {@code execute} ({@code traceparent}, {@code
 * tracestate}, {@code baggage} or one header per baggage field), stored as application headers of
 * the journal row. They pass the same rules as an application header ({@link
 * TxMessage#acceptsHeader}), so the envelope never carries a property name or size the validator
 * would have refused; an injected header that does not is dropped (the trace stays unlinked, the
 * event is unaffected).
 */
final class TraceHeaders {
  // A propagator adds a handful (W3C: traceparent, tracestate, baggage); more is a misconfigured
  // baggage list, which must not grow every row.
  private static final int MAX_INJECTED = 8;

  private TraceHeaders() {}

  /** The injected headers that may be stored, at most {@value #MAX_INJECTED}, in name order. */
  static Map<String, String> usable(Map<String, String> injected) {
    if (injected.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new TreeMap<>();
    new TreeMap<>(injected)
        .forEach(
            (name, value) -> {
              if (out.size() < MAX_INJECTED && TxMessage.acceptsHeader(name, value)) {
                out.put(name, value);
              }
            });
    return out;
  }

  /**
   * The headers stored with a row: the trace headers, then the message's own, which win on a clash
   * (an application that propagates {@code traceparent} itself keeps its value).
   */
  static Map<String, String> merge(Map<String, String> headers, Map<String, String> trace) {
    if (trace.isEmpty()) {
      return headers;
    }
    Map<String, String> all = new HashMap<>(trace);
    all.putAll(headers);
    return all;
  }
}
