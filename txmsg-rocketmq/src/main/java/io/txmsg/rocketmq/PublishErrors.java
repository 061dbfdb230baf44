package io.txmsg.rocketmq;

import io.txmsg.api.PublishException;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.java.exception.ForbiddenException;
import org.apache.rocketmq.client.java.exception.NotFoundException;
import org.apache.rocketmq.client.java.exception.PayloadTooLargeException;
import org.apache.rocketmq.client.java.exception.UnauthorizedException;

/** The one place that maps RocketMQ client failures to txmsg error codes and retryability. */
final class PublishErrors {
  private PublishErrors() {}

  static PublishException classify(String what, Throwable t) {
    Throwable e = unwrap(t);
    if (e instanceof NotFoundException) {
      return new PublishException(
          what + ": topic not found (" + e.getMessage() + ")", "TOPIC_NOT_FOUND", false, e);
    }
    if (e instanceof ForbiddenException || e instanceof UnauthorizedException) {
      return new PublishException(
          what + ": permission denied (" + e.getMessage() + ")", "PERMISSION_DENIED", false, e);
    }
    if (e instanceof PayloadTooLargeException) {
      return new PublishException(
          what + ": message too large (" + e.getMessage() + ")", "TOO_LARGE", false, e);
    }
    if (e instanceof IllegalArgumentException) {
      // e.g. "message type not match" for a topic that is not a TRANSACTION topic.
      return new PublishException(
          what + ": rejected by the client (" + e.getMessage() + ")", "BAD_REQUEST", false, e);
    }
    if (e instanceof ClientException) {
      // Throttling, proxy timeouts, internal errors, network failures: worth retrying.
      return new PublishException(
          what + ": " + e.getClass().getSimpleName() + " (" + e.getMessage() + ")",
          e.getClass().getSimpleName(),
          true,
          e);
    }
    return new PublishException(what + ": " + e, "CLIENT_ERROR", true, e);
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
