package io.txmsg.consumer;

import io.txmsg.api.consumer.GapPolicy;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.api.consumer.VersionPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One handler: which (group, topic, event type) it serves, the payload type, and its options. The
 * programmatic counterpart of {@link TxMessageHandler}.
 *
 * <pre>{@code
 * HandlerDefinition.of("points", "payment", "PaymentSucceeded", PaymentSucceeded.class,
 *         (event, ctx) -> credit(ctx.connection(), event))
 *     .versionGuard(true)
 *     .maxAttempts(10);
 * }</pre>
 */
public final class HandlerDefinition<T> {
  private final String group;
  private final String topic;
  private final String eventType;
  private final Class<T> payloadType;
  private final EventHandler<T> handler;
  private boolean versionGuard;
  private VersionPolicy versionPolicy = VersionPolicy.MONOTONIC;
  private GapPolicy gapPolicy = GapPolicy.PARK;
  private Duration maxGapWait = Duration.ofSeconds(30);
  private int maxAttempts = 16;
  private List<Class<? extends Throwable>> permanent = List.of();
  private int concurrency;
  private String description;

  private HandlerDefinition(
      String group, String topic, String eventType, Class<T> payloadType, EventHandler<T> handler) {
    this.group = requireText(group, "consumerGroup");
    this.topic = requireText(topic, "topic");
    this.eventType = requireText(eventType, "eventType");
    this.payloadType = Objects.requireNonNull(payloadType, "payloadType");
    this.handler = Objects.requireNonNull(handler, "handler");
    this.description = group + "/" + eventType;
  }

  public static <T> HandlerDefinition<T> of(
      String group, String topic, String eventType, Class<T> payloadType, EventHandler<T> handler) {
    return new HandlerDefinition<>(group, topic, eventType, payloadType, handler);
  }

  /** Copies the options of an annotation. */
  public HandlerDefinition<T> options(TxMessageHandler a) {
    return versionGuard(a.versionGuard())
        .versionPolicy(a.versionPolicy())
        .gapPolicy(a.gapPolicy(), Duration.ofMillis(a.maxGapWaitMillis()))
        .maxAttempts(a.maxAttempts())
        .permanent(List.of(a.permanent()))
        .concurrency(a.concurrency());
  }

  public HandlerDefinition<T> versionGuard(boolean on) {
    this.versionGuard = on;
    return this;
  }

  public HandlerDefinition<T> versionPolicy(VersionPolicy policy) {
    this.versionPolicy = Objects.requireNonNull(policy, "versionPolicy");
    return this;
  }

  public HandlerDefinition<T> gapPolicy(GapPolicy policy, Duration maxWait) {
    this.gapPolicy = Objects.requireNonNull(policy, "gapPolicy");
    if (maxWait == null || maxWait.isNegative()) {
      throw new IllegalArgumentException("maxGapWait must be >= 0");
    }
    this.maxGapWait = maxWait;
    return this;
  }

  public HandlerDefinition<T> maxAttempts(int attempts) {
    if (attempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, got " + attempts);
    }
    this.maxAttempts = attempts;
    return this;
  }

  public HandlerDefinition<T> permanent(List<Class<? extends Throwable>> types) {
    this.permanent = List.copyOf(types);
    return this;
  }

  public HandlerDefinition<T> concurrency(int concurrency) {
    if (concurrency < 0) {
      throw new IllegalArgumentException("concurrency must be >= 0");
    }
    this.concurrency = concurrency;
    return this;
  }

  /** How the handler is named in logs and startup errors (e.g. the bean method). */
  public HandlerDefinition<T> describedAs(String description) {
    this.description = description;
    return this;
  }

  private static String requireText(String s, String name) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return s;
  }

  public String group() {
    return group;
  }

  public String topic() {
    return topic;
  }

  public String eventType() {
    return eventType;
  }

  public Class<T> payloadType() {
    return payloadType;
  }

  EventHandler<T> handler() {
    return handler;
  }

  public boolean versionGuard() {
    return versionGuard;
  }

  public VersionPolicy versionPolicy() {
    return versionPolicy;
  }

  public GapPolicy gapPolicy() {
    return gapPolicy;
  }

  public Duration maxGapWait() {
    return maxGapWait;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  public List<Class<? extends Throwable>> permanent() {
    return permanent;
  }

  public int concurrency() {
    return concurrency;
  }

  @Override
  public String toString() {
    return description;
  }
}
