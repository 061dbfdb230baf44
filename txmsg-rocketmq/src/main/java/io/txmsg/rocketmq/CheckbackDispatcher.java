package io.txmsg.rocketmq;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.Envelope;
import io.txmsg.api.Resolution;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.TransactionChecker;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's RocketMQ {@link TransactionChecker}: turns the check view into a {@link
 * CheckbackRequest} and routes it to the most specific resolver (topic and type, then type, then
 * topic, then the default). Never throws into the client: any failure answers UNKNOWN.
 */
final class CheckbackDispatcher implements TransactionChecker {
  private static final Logger log = LoggerFactory.getLogger(CheckbackDispatcher.class);

  /** Set by the broker on the check view: how many times it has checked this half message. */
  static final String CHECK_TIMES_PROPERTY = "TRANSACTION_CHECK_TIMES";

  private final List<CheckbackResolver> resolvers;
  private final CheckbackResolver fallback;

  CheckbackDispatcher(List<CheckbackResolver> resolvers, CheckbackResolver fallback) {
    this.resolvers = List.copyOf(resolvers);
    this.fallback = fallback;
  }

  @Override
  public TransactionResolution check(MessageView view) {
    try {
      CheckbackRequest request = request(view);
      Resolution r = route(request.topic(), request.eventType()).resolve(request);
      return r == null ? TransactionResolution.UNKNOWN : TransactionResolution.valueOf(r.name());
    } catch (Throwable t) {
      log.warn("check-back failed messageId={}: {} → UNKNOWN", view.getMessageId(), t.toString());
      return TransactionResolution.UNKNOWN;
    }
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

  static CheckbackRequest request(MessageView view) {
    Map<String, String> p = view.getProperties();
    int checkTimes = -1;
    String times = p.get(CHECK_TIMES_PROPERTY);
    if (times != null) {
      try {
        checkTimes = Integer.parseInt(times.trim());
      } catch (NumberFormatException e) {
        log.debug("unreadable {}='{}'", CHECK_TIMES_PROPERTY, times);
      }
    }
    return new CheckbackRequest(
        view.getTopic(),
        p.get(Envelope.EVENT_TYPE),
        p.get(Envelope.EVENT_ID),
        p.get(Envelope.ATTEMPT_ID),
        p.get(Envelope.STORE_ID),
        checkTimes,
        Instant.ofEpochMilli(view.getBornTimestamp()),
        view.getMessageId().toString(),
        Map.copyOf(p));
  }
}
