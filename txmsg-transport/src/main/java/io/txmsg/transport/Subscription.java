package io.txmsg.transport;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/** A running consumer (a group's subscription, a confirm group, a dead-letter drain). */
public interface Subscription extends AutoCloseable {
  /**
   * The broker's maximum delivery attempts for this group (after the last one it moves the message
   * to the group's dead-letter queue), waiting up to {@code wait} for the broker to announce it.
   * Empty when the broker has not said within that time.
   */
  OptionalInt maxDeliveryAttempts(Duration wait) throws InterruptedException;

  /**
   * Why this subscription cannot consume right now although it should, in words an operator can act
   * on (e.g. a dead-letter topic that exists but is not readable, with the command that fixes it);
   * empty when nothing is wrong or the transport cannot tell. For health checks and tests; the
   * transport also logs it.
   */
  default Optional<String> problem() {
    return Optional.empty();
  }

  /** Stops consuming; in-flight handler calls finish first. */
  @Override
  void close() throws Exception;
}
