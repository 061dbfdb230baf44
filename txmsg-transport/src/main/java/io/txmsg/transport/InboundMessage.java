package io.txmsg.transport;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A message as a transport hands it to txmsg: a delivery to a consumer group, a message read by the
 * confirm group or the dead-letter drain, or the view of a half message the broker checks back.
 *
 * @param topic the topic it was read from (for a dead letter: the %DLQ% topic)
 * @param messageId the broker's message id
 * @param properties all user properties as received (the envelope, headers and broker properties
 *     such as the check count)
 * @param body the payload bytes
 * @param deliveryAttempt 1 for the first delivery, 2 for the first redelivery, …; 0 where the
 *     notion does not apply (check-back views)
 * @param bornTime when the producer sent it
 */
public record InboundMessage(
    String topic,
    String messageId,
    Map<String, String> properties,
    byte[] body,
    int deliveryAttempt,
    Instant bornTime) {
  public InboundMessage {
    Objects.requireNonNull(properties, "properties");
    Objects.requireNonNull(body, "body");
  }
}
