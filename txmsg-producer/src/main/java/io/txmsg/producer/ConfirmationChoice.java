package io.txmsg.producer;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.transport.BrokerConnection;

/**
 * Which {@link DeliveryConfirmation} a store gets when none is set, and which ones its delivery
 * mode and transport allow. Kept apart from the settings because the two answers must agree: a
 * default is always an allowed choice.
 */
final class ConfirmationChoice {
  private ConfirmationChoice() {}

  /**
   * The default: SEND_OK for OUTBOX and CDC; for HALF_MESSAGE, BROKER_ACK when the brokers are
   * declared durable and the transport is remoting (the only one that reads the broker's answer to
   * the commit), else CONSUMER.
   */
  static DeliveryConfirmation defaultFor(
      DeliveryMode mode, boolean brokersDurable, BrokerConnection connection) {
    if (mode != DeliveryMode.HALF_MESSAGE) {
      return DeliveryConfirmation.SEND_OK;
    }
    return brokersDurable && connection != null && "remoting".equals(connection.protocol())
        ? DeliveryConfirmation.BROKER_ACK
        : DeliveryConfirmation.CONSUMER;
  }

  /**
   * Why {@code c} is refused for {@code mode} over {@code connection}, or null when it is allowed.
   */
  static String refusal(DeliveryMode mode, DeliveryConfirmation c, BrokerConnection connection) {
    if (mode == DeliveryMode.CDC && c != DeliveryConfirmation.SEND_OK) {
      return "deliveryMode CDC records SENT from the broker's SEND_OK (the relay's and the"
          + " reconciler's sends); only SEND_OK is allowed, was "
          + c;
    }
    if (mode == DeliveryMode.HALF_MESSAGE && c == DeliveryConfirmation.SEND_OK) {
      return "SEND_OK is for deliveryMode OUTBOX or CDC; a HALF_MESSAGE store uses CONSUMER or"
          + " PROXY_ACK";
    }
    if (mode != DeliveryMode.HALF_MESSAGE && c == DeliveryConfirmation.PROXY_ACK) {
      return "PROXY_ACK is for deliveryMode HALF_MESSAGE; an OUTBOX store uses SEND_OK or CONSUMER";
    }
    if (mode != DeliveryMode.HALF_MESSAGE && c == DeliveryConfirmation.BROKER_ACK) {
      return "BROKER_ACK is for deliveryMode HALF_MESSAGE; an OUTBOX store uses SEND_OK or CONSUMER";
    }
    if (c == DeliveryConfirmation.BROKER_ACK
        && connection != null
        && "grpc".equals(connection.protocol())) {
      return "BROKER_ACK reads the broker's answer to a synchronous commit, which only the remoting"
          + " transport (a NameServer connection) gets; through a gRPC proxy the commit is"
          + " oneway: use CONSUMER, or PROXY_ACK if its window is acceptable";
    }
    return null;
  }
}
