package io.txmsg.transport;

import java.util.Objects;
import java.util.Set;

/**
 * What a producer channel is opened with.
 *
 * @param storeId the store (journal) this producer writes for; check-backs for other stores are
 *     answered UNKNOWN by the handler
 * @param topics the topics it sends to; the transport declares them so that their check-backs reach
 *     this producer
 * @param checkbackHandler answers check-backs from durable state
 */
public record ProducerSpec(String storeId, Set<String> topics, CheckbackHandler checkbackHandler) {
  public ProducerSpec {
    Objects.requireNonNull(storeId, "storeId");
    topics = Set.copyOf(topics);
    Objects.requireNonNull(checkbackHandler, "checkbackHandler");
  }
}
