package io.txmsg.store;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.LogSafe;
import java.util.regex.Pattern;

/**
 * The configured table-name prefix. It is pasted into SQL text (table names cannot be bound), so it
 * is validated strictly: lower-case letters, digits and underscores, starting with a letter, at
 * most 24 characters.
 */
public final class TablePrefix {
  /** The default prefix: tables are named txmsg_journal, txmsg_attempt, and so on. */
  public static final String DEFAULT = "txmsg_";

  private static final Pattern VALID = Pattern.compile("[a-z][a-z0-9_]{0,23}");

  private TablePrefix() {}

  /**
   * @return the prefix, unchanged
   * @throws InvalidSettingsException when it could be anything but a plain identifier prefix
   */
  public static String validate(String prefix) {
    if (prefix == null || !VALID.matcher(prefix).matches()) {
      throw new InvalidSettingsException(
          "tablePrefix",
          "must match [a-z][a-z0-9_]{0,23} (it becomes part of table names), was "
              + LogSafe.quote(prefix));
    }
    return prefix;
  }
}
