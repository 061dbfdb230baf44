package io.txmsg.cli;

import io.txmsg.store.tx.SqlStates;
import java.sql.SQLException;
import java.util.regex.Pattern;

/** One-line error messages for stderr, with the password masked wherever a driver echoed it. */
final class Errors {
  private static final Pattern URL_PASSWORD =
      Pattern.compile("(?i)(password=)[^&;\\s]*", Pattern.CASE_INSENSITIVE);

  private Errors() {}

  static String oneLine(Throwable t, String secret) {
    SQLException sql = SqlStates.find(t);
    String text;
    if (sql != null) {
      text =
          "database error: "
              + firstLine(sql.getMessage())
              + (sql.getSQLState() == null ? "" : " [SQLState " + sql.getSQLState() + "]");
    } else {
      Throwable root = t;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      String m = root.getMessage();
      text = "error: " + (m == null ? root.getClass().getSimpleName() : firstLine(m));
    }
    return mask(text, secret);
  }

  /** Masks the password and any {@code password=...} a URL in a message carried. */
  static String mask(String text, String secret) {
    String out = text;
    if (secret != null && !secret.isEmpty()) {
      out = out.replace(secret, "****");
    }
    return URL_PASSWORD.matcher(out).replaceAll("$1****");
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    String line = s.strip();
    int nl = line.indexOf('\n');
    return nl < 0 ? line : line.substring(0, nl).strip();
  }
}
