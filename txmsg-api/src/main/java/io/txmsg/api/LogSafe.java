package io.txmsg.api;

/**
 * Renders untrusted text (event ids, topics, event types, business keys, header names and values,
 * group names, anything that came from a caller or off the wire) for exception messages and log
 * lines, so that a value cannot forge a log line: a value {@code "evt-1\nFAKE LOG LINE"} would
 * otherwise start a new, authentic-looking line in every log that prints the message.
 *
 * <p>Escapes {@code \n}, {@code \r} and {@code \t} as those two-character sequences, every other
 * ISO control character and the Unicode line and paragraph separators (U+2028, U+2029) as {@code
 * \}{@code uXXXX}, and the backslash itself as {@code \\} (so an escaped value cannot be mistaken
 * for one that was escaped already). Values longer than {@link #MAX_LENGTH} characters are cut and
 * say how much was left out, so a megabyte-long "event id" does not end up in the log either.
 */
public final class LogSafe {
  /** The longest value rendered in full; longer ones are truncated. */
  public static final int MAX_LENGTH = 256;

  private LogSafe() {}

  /**
   * The value escaped and in single quotes, e.g. {@code 'evt-1\nFAKE'}; {@code null} (unquoted) for
   * null.
   */
  public static String quote(String value) {
    return value == null ? "null" : "'" + escape(value) + "'";
  }

  /**
   * The value escaped without quotes (for log parameters such as {@code eventId={}}); {@code null}
   * for null.
   */
  public static String escape(String value) {
    if (value == null) {
      return null;
    }
    int end = Math.min(value.length(), MAX_LENGTH);
    if (end == value.length() && isPlain(value)) {
      return value; // the common case: no copy
    }
    StringBuilder sb = new StringBuilder(end + 16);
    for (int i = 0; i < end; i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\\' -> sb.append("\\\\");
        default -> {
          if (needsUnicodeEscape(c)) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    if (end < value.length()) {
      sb.append("...(").append(value.length() - end).append(" more chars)");
    }
    return sb.toString();
  }

  private static boolean isPlain(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\\' || needsUnicodeEscape(c)) {
        return false;
      }
    }
    return true;
  }

  private static boolean needsUnicodeEscape(char c) {
    return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
  }
}
