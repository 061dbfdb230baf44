package io.txmsg.transport;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * A store's delivery-confirmation source.
 *
 * @param group the confirm consumer group ({@code txmsg-confirm-<storeId>})
 * @param topics the topics the store publishes to
 * @param batchSize the largest batch handed to the {@link BatchHandler}
 * @param flushInterval how long a batch may wait to fill up once messages are flowing
 */
public record ConfirmationSpec(
    String group, Set<String> topics, int batchSize, Duration flushInterval) {
  public ConfirmationSpec {
    Objects.requireNonNull(group, "group");
    topics = Set.copyOf(topics);
    Objects.requireNonNull(flushInterval, "flushInterval");
  }
}
