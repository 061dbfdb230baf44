package io.txmsg.consumer;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.LogSafe;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One consumer group as every instance must see it. The subscription (topics and tag filter) comes
 * from here, never from the handlers an instance happens to have: RocketMQ's pop consumption moves
 * the whole group past messages one instance's filter excludes, so per-instance filters lose
 * messages during a rolling deploy. An event type without a local handler is retried and then
 * parked as NO_HANDLER, unless listed in {@link #ignore}.
 */
public final class ConsumerGroupConfig {
  private final String name;
  private final Map<String, String> subscriptions = new LinkedHashMap<>();
  private final Set<String> ignoredEventTypes = new LinkedHashSet<>();
  private int consumptionThreads;
  private int maxAttempts = 16;

  private ConsumerGroupConfig(String name) {
    if (name == null || name.isBlank() || name.length() > 64) {
      throw new InvalidSettingsException(
          "groups[" + LogSafe.escape(name) + "].name", "must be 1..64 characters");
    }
    this.name = name;
  }

  public static ConsumerGroupConfig of(String name) {
    return new ConsumerGroupConfig(name);
  }

  /** Subscribes the group to a topic with the tag filter {@code *}. */
  public ConsumerGroupConfig subscribe(String topic) {
    return subscribe(topic, "*");
  }

  /** Subscribes the group to a topic with a tag expression, e.g. {@code "paid || refunded"}. */
  public ConsumerGroupConfig subscribe(String topic, String tagExpression) {
    subscriptions.put(
        Objects.requireNonNull(topic, "topic"), Objects.requireNonNull(tagExpression, "tag"));
    return this;
  }

  /** Event types this group acknowledges without a handler (never parked). */
  public ConsumerGroupConfig ignore(String... eventTypes) {
    Collections.addAll(ignoredEventTypes, eventTypes);
    return this;
  }

  public ConsumerGroupConfig consumptionThreads(int threads) {
    this.consumptionThreads = threads;
    return this;
  }

  /** Deliveries of an event without a local handler before it is parked as NO_HANDLER. */
  public ConsumerGroupConfig maxAttempts(int attempts) {
    if (attempts < 1) {
      throw new InvalidSettingsException(
          "groups[" + LogSafe.escape(name) + "].maxAttempts", "must be >= 1");
    }
    this.maxAttempts = attempts;
    return this;
  }

  /** A copy the running consumers keep (later changes to this one do not reach them). */
  ConsumerGroupConfig copy() {
    ConsumerGroupConfig c = new ConsumerGroupConfig(name);
    c.subscriptions.putAll(subscriptions);
    c.ignoredEventTypes.addAll(ignoredEventTypes);
    c.consumptionThreads = consumptionThreads;
    c.maxAttempts = maxAttempts;
    return c;
  }

  public String name() {
    return name;
  }

  public Map<String, String> subscriptions() {
    return subscriptions;
  }

  public Set<String> ignoredEventTypes() {
    return ignoredEventTypes;
  }

  /** 0 means the settings' default. */
  public int consumptionThreads() {
    return consumptionThreads;
  }

  public int maxAttempts() {
    return maxAttempts;
  }
}
