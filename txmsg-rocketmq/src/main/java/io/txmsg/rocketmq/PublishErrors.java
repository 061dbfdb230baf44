package io.txmsg.rocketmq;

import io.txmsg.api.PublishException;
import io.txmsg.transport.BrokerText;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.java.exception.ForbiddenException;
import org.apache.rocketmq.client.java.exception.NotFoundException;
import org.apache.rocketmq.client.java.exception.PayloadTooLargeException;
import org.apache.rocketmq.client.java.exception.UnauthorizedException;

/**
 * The one place that maps RocketMQ client failures to txmsg error codes and retryability, and that
 * puts what the proxy or the client said into txmsg's messages: always through {@link #said}, so a
 * line break in it (the proxy's text for a missing topic ends with one and a FAQ link) never
 * reaches a log line raw.
 */
final class PublishErrors {
  private PublishErrors() {}

  /**
   * What the proxy or the client said in {@code t}'s message, on one line (see {@link BrokerText}).
   */
  static String said(Throwable t) {
    return BrokerText.message(t);
  }

  static PublishException classify(String what, Throwable t) {
    Throwable e = unwrap(t);
    if (e instanceof NotFoundException) {
      return new PublishException(
          what + ": topic not found (" + said(e) + ")", "TOPIC_NOT_FOUND", false, e);
    }
    if (e instanceof ForbiddenException || e instanceof UnauthorizedException) {
      return new PublishException(
          what + ": permission denied (" + said(e) + ")", "PERMISSION_DENIED", false, e);
    }
    if (e instanceof PayloadTooLargeException) {
      return new PublishException(
          what + ": message too large (" + said(e) + ")", "TOO_LARGE", false, e);
    }
    if (e instanceof IllegalArgumentException) {
      // e.g. "message type not match" for a topic that is not a TRANSACTION topic.
      return new PublishException(
          what + ": rejected by the client (" + said(e) + ")", "BAD_REQUEST", false, e);
    }
    if (e instanceof ClientException) {
      // Throttling, proxy timeouts, internal errors, network failures: worth retrying.
      return new PublishException(
          what + ": " + e.getClass().getSimpleName() + " (" + said(e) + ")",
          e.getClass().getSimpleName(),
          true,
          e);
    }
    return new PublishException(
        what + ": " + e.getClass().getName() + " (" + said(e) + ")", "CLIENT_ERROR", true, e);
  }

  /** The first throwable of the type in the cause chain (bounded against cycles), or null. */
  static Throwable find(Throwable t, Class<? extends Throwable> type) {
    Throwable c = t;
    for (int depth = 0; c != null && depth < 32; depth++, c = c.getCause()) {
      if (type.isInstance(c)) {
        return c;
      }
    }
    return null;
  }

  private static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof java.util.concurrent.ExecutionException
            || c instanceof java.util.concurrent.CompletionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
