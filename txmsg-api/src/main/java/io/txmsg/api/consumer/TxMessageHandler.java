package io.txmsg.api.consumer;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of one event type for one consumer group. The method takes the
 * payload (deserialized to the parameter type) and optionally a {@link ConsumeContext}:
 *
 * <pre>{@code
 * @TxMessageHandler(topic = "payment", consumerGroup = "points", eventType = "PaymentSucceeded",
 *                   versionGuard = true)
 * public void onPaid(PaymentSucceeded event, ConsumeContext ctx) { pointsMapper.credit(...); }
 * }</pre>
 *
 * <p>The handler runs inside ONE local transaction that also claims the event in the consume log;
 * its writes commit together with the claim, so a redelivered event is recognised and not applied
 * again. A handler that opens its own transaction (Spring {@code REQUIRES_NEW}, a second
 * DataSource) escapes that guarantee: those writes can be applied twice.
 *
 * <p>Exactly one handler per (consumer group, event type); a second one is a startup error.
 * Exceptions thrown by the handler roll the transaction back; {@link PermanentConsumeException},
 * the types in {@link #permanent()} and validation/deserialization failures park the event at once,
 * everything else is retried with the group's backoff and parked after {@link #maxAttempts()}
 * deliveries.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface TxMessageHandler {
  /** The topic; under Spring a property placeholder ({@code "${payments.topic}"}) is resolved. */
  String topic();

  /** The consumer group; placeholders are resolved as for {@link #topic()}. */
  String consumerGroup();

  /** The event type this method handles; placeholders are resolved as for {@link #topic()}. */
  String eventType();

  /** Reject events whose aggregate version is not newer than the last applied one. */
  boolean versionGuard() default false;

  VersionPolicy versionPolicy() default VersionPolicy.MONOTONIC;

  /** What a {@link VersionPolicy#CONTIGUOUS} gap becomes after {@link #maxGapWaitMillis()}. */
  GapPolicy gapPolicy() default GapPolicy.PARK;

  /** How long a version gap is retried by redelivery before the gap policy decides. */
  long maxGapWaitMillis() default 30_000;

  /**
   * Deliveries before a failing event is parked. The effective limit is min(this, the consumer
   * group's broker-side max attempts), so the broker's %DLQ% never receives an event silently.
   */
  int maxAttempts() default 16;

  /** Exception types (and subtypes) that park the event at once instead of retrying. */
  Class<? extends Throwable>[] permanent() default {};

  /** Maximum concurrent invocations of this handler; 0 = bounded only by the group's threads. */
  int concurrency() default 0;
}
