package io.txmsg.examples.faults;

import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.examples.faults.FaultPlan.Fault;

/**
 * Skips the ack after the handler's commit for some events (once each), like a consumer crashing
 * between commit and ack: the broker redelivers and the consume log absorbs the duplicate.
 */
public final class ConsumerFaults implements ConsumerInterceptor {
  private final FaultPlan plan;

  public ConsumerFaults(FaultPlan plan) {
    this.plan = plan;
  }

  @Override
  public boolean beforeAck(String consumerGroup, String eventId) {
    if (plan.dropAck(consumerGroup, eventId)) {
      plan.injected(Fault.ACK_LOSS);
      return false;
    }
    return true;
  }
}
