package io.txmsg.transport;

import java.util.Map;
import java.util.Objects;

/**
 * A consumer group's subscription.
 *
 * @param group the consumer group (the same on every instance)
 * @param tagsByTopic topic → tag filter expression ({@code *} for all)
 * @param threads consumption threads
 */
public record SubscriptionSpec(String group, Map<String, String> tagsByTopic, int threads) {
  public SubscriptionSpec {
    Objects.requireNonNull(group, "group");
    tagsByTopic = Map.copyOf(tagsByTopic);
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
  }
}
