package io.txmsg.rocketmq.remoting;

import io.txmsg.api.PublishException;
import io.txmsg.transport.BrokerText;
import org.apache.rocketmq.client.common.ClientErrorCode;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.apache.rocketmq.remoting.protocol.ResponseCode;

/**
 * The one place that maps rocketmq-client (remoting) failures to txmsg error codes and
 * retryability, the same codes the gRPC transport uses where the meaning is the same.
 *
 * <p>Permanent: a missing topic (broker code 17, or the client's "no route" 10005), no permission
 * (16, and the ACL's 1 with an access-denied remark), a message too large or otherwise illegal
 * (13). Retryable: everything transient — system busy (2), flush and replica timeouts reported as a
 * send status, network timeouts and connection failures.
 *
 * <p>What the broker or the client said goes into txmsg's messages only through {@link #said}: on
 * one line, without the client's FAQ link, so that a remark cannot forge a log line.
 */
final class RemotingErrors {
  private RemotingErrors() {}

  static PublishException classify(String what, Throwable t) {
    Throwable e = t;
    if (e instanceof MQClientException c && c.getCause() instanceof MQBrokerException) {
      e = c.getCause();
    }
    if (e instanceof MQBrokerException b) {
      return fromCode(what, b.getResponseCode(), b.getErrorMessage(), b);
    }
    if (e instanceof MQClientException c) {
      int code = c.getResponseCode();
      // The selector send (FIFO: a queue per message group) says "for" and sets no code.
      if (code == ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION
          || String.valueOf(c.getErrorMessage()).contains("No route info of this topic")
          || String.valueOf(c.getErrorMessage()).contains("No route info for this topic")) {
        return new PublishException(
            what + ": topic not found (" + said(c.getErrorMessage()) + ")",
            "TOPIC_NOT_FOUND",
            false,
            c);
      }
      if (code > 0 && code < 10000) {
        return fromCode(what, code, c.getErrorMessage(), c);
      }
      if (c.getCause() instanceof RemotingException r) {
        return transientFailure(what, r);
      }
      return new PublishException(what + ": " + said(c.getErrorMessage()), "CLIENT_ERROR", true, c);
    }
    if (e instanceof RemotingException r) {
      return transientFailure(what, r);
    }
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return new PublishException(what + ": interrupted", "INTERRUPTED", true, e);
    }
    return new PublishException(
        what + ": " + e.getClass().getName() + " (" + said(e.getMessage()) + ")",
        "CLIENT_ERROR",
        true,
        e);
  }

  /** A send the broker stored but whose flush or replication it could not confirm. */
  static PublishException notConfirmed(String what, SendStatus status) {
    return new PublishException(
        what + ": broker answered " + status + " (stored on the master, durability unconfirmed)",
        status.name(),
        true,
        null);
  }

  private static PublishException fromCode(String what, int code, String remark, Throwable e) {
    String detail = " (broker code " + code + ": " + said(remark) + ")";
    switch (code) {
      case ResponseCode.TOPIC_NOT_EXIST:
        return new PublishException(
            what + ": topic not found" + detail, "TOPIC_NOT_FOUND", false, e);
      case ResponseCode.NO_PERMISSION:
        return new PublishException(
            what + ": permission denied" + detail, "PERMISSION_DENIED", false, e);
      case ResponseCode.MESSAGE_ILLEGAL:
        return new PublishException(what + ": message rejected" + detail, "TOO_LARGE", false, e);
      case ResponseCode.SYSTEM_BUSY:
      case ResponseCode.SERVICE_NOT_AVAILABLE:
      case ResponseCode.FLUSH_DISK_TIMEOUT:
      case ResponseCode.SLAVE_NOT_AVAILABLE:
      case ResponseCode.FLUSH_SLAVE_TIMEOUT:
        return new PublishException(what + ": broker busy" + detail, "BROKER_BUSY", true, e);
      default:
        if (String.valueOf(remark).toLowerCase().contains("no permission")
            || String.valueOf(remark).toLowerCase().contains("access denied")) {
          return new PublishException(
              what + ": permission denied" + detail, "PERMISSION_DENIED", false, e);
        }
        return new PublishException(what + ": broker error" + detail, "BROKER_ERROR", true, e);
    }
  }

  private static PublishException transientFailure(String what, RemotingException r) {
    return new PublishException(
        what + ": " + r.getClass().getSimpleName() + " (" + said(r.getMessage()) + ")",
        r.getClass().getSimpleName(),
        true,
        r);
  }

  /** What the broker or the client said, on one line (see {@link BrokerText}). */
  static String said(String text) {
    return BrokerText.render(text);
  }
}
