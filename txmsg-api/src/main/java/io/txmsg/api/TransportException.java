package io.txmsg.api;

/**
 * The broker transport could not open a producer or a consumer (broker unreachable, topic or group
 * missing, credentials refused). The message names the broker address and the topic or group.
 */
public class TransportException extends TxMessagingException {
  private static final long serialVersionUID = 1L;

  public TransportException(String message, Throwable cause) {
    super(message, cause);
  }
}
