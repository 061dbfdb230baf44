package io.txmsg.api.consumer;

/**
 * Observation and fault-injection points of the consumer, for tests, demos and chaos drills. All
 * methods default to doing nothing.
 */
public interface ConsumerInterceptor {
  /**
   * The handler's transaction committed. Returning false skips the acknowledgement, which is what a
   * consumer crashing between commit and ack does: the broker redelivers and the consume log
   * absorbs the duplicate.
   */
  default boolean beforeAck(String consumerGroup, String eventId) {
    return true;
  }
}
