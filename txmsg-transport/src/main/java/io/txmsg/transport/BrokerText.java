package io.txmsg.transport;

import io.txmsg.api.LogSafe;

/**
 * Renders text that came off the wire (a broker's remark, a proxy's status message, a client
 * library's exception message) for the messages of txmsg's own exceptions, which end up in logs:
 * the text of a missing topic over gRPC, for one, carries a line break before a FAQ link, and a raw
 * line break there would start a new, authentic-looking log line. Each transport's error mapping
 * renders wire text through this, and only through this.
 *
 * <p>RocketMQ's FAQ trailer (a line break, then {@code See <url> for further details.} or {@code
 * For more information, please visit the url, <url>}) says nothing about the failure and is cut;
 * the rest is escaped as {@link LogSafe#escape} escapes caller input (line breaks and other control
 * characters as visible escapes, cut after {@link LogSafe#MAX_LENGTH} characters).
 */
public final class BrokerText {
  private static final String[] FAQ_TRAILERS = {
    "\nSee http", "\nFor more information, please visit the url"
  };

  private BrokerText() {}

  /** The text on one line, without RocketMQ's FAQ trailer; {@code ""} for null. */
  public static String render(String text) {
    if (text == null) {
      return "";
    }
    String t = text;
    for (String trailer : FAQ_TRAILERS) {
      int at = t.indexOf(trailer);
      if (at >= 0) {
        t = t.substring(0, at);
      }
    }
    return LogSafe.escape(t.strip());
  }

  /** The throwable's message rendered as {@link #render(String)} does; {@code ""} for none. */
  public static String message(Throwable t) {
    return t == null ? "" : render(t.getMessage());
  }
}
