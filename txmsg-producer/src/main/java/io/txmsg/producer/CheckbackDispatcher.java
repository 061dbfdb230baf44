package io.txmsg.producer;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.Envelope;
import io.txmsg.api.Resolution;
import io.txmsg.transport.CheckbackHandler;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.InboundMessage;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's {@link CheckbackHandler}: turns the check view into a {@link CheckbackRequest} and
 * routes it to the most specific resolver (topic and type, then type, then topic, then the
 * default). Never throws into the client: any failure answers UNKNOWN.
 */
final class CheckbackDispatcher implements CheckbackHandler {
  private static final Logger log = LoggerFactory.getLogger(CheckbackDispatcher.class);

  private final List<CheckbackResolver> resolvers;
  private final CheckbackResolver fallback;
  private final ProducerObservations observations;

  CheckbackDispatcher(
      List<CheckbackResolver> resolvers,
      CheckbackResolver fallback,
      ProducerObservations observations) {
    this.resolvers = List.copyOf(resolvers);
    this.fallback = fallback;
    this.observations = observations;
  }

  @Override
  public Resolution check(InboundMessage view) {
    try {
      CheckbackRequest request = EnvelopeCodec.checkbackRequest(view);
      // The half message carries the execute span's context: the check-back joins its trace.
      try (ProducerObservations.Observed observed =
          observations.checkback(
              request.topic(), request.eventType(), request.eventId(), headers(request))) {
        Resolution r = route(request.topic(), request.eventType()).resolve(request);
        r = r == null ? Resolution.UNKNOWN : r;
        observed.outcome(r.name().toLowerCase(java.util.Locale.ROOT));
        return r;
      }
    } catch (Throwable t) {
      log.warn("check-back failed messageId={}: {} → UNKNOWN", view.messageId(), t.toString());
      return Resolution.UNKNOWN;
    }
  }

  /** The application headers of the half message (its trace context among them). */
  private static Map<String, String> headers(CheckbackRequest request) {
    Map<String, String> h = new HashMap<>();
    request
        .properties()
        .forEach(
            (k, v) -> {
              if (k.startsWith(Envelope.HEADER_PREFIX)) {
                h.put(k.substring(Envelope.HEADER_PREFIX.length()), v);
              }
            });
    return h;
  }

  CheckbackResolver route(String topic, String eventType) {
    CheckbackResolver best = null;
    int bestScore = -1;
    for (CheckbackResolver r : resolvers) {
      boolean topicOk = r.topics().isEmpty() || r.topics().contains(topic);
      boolean typeOk = r.eventTypes().isEmpty() || r.eventTypes().contains(eventType);
      if (!topicOk || !typeOk) {
        continue;
      }
      int score = (r.eventTypes().isEmpty() ? 0 : 2) + (r.topics().isEmpty() ? 0 : 1);
      if (score > bestScore) {
        best = r;
        bestScore = score;
      }
    }
    return best != null ? best : fallback;
  }
}
