package io.txmsg.testkit.rocketmq;

/** The embedded cluster could not be started, or refused a command. */
public class EmbeddedRocketMQException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong, with the tail of the cluster's output where it helps
   */
  public EmbeddedRocketMQException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public EmbeddedRocketMQException(String message, Throwable cause) {
    super(message, cause);
  }
}
