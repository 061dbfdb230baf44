package io.txmsg.store.schema;

import io.txmsg.api.TxMessagingException;

/**
 * The database's txmsg schema is not the version this release needs: missing, older (upgrade it:
 * {@code txmsg schema apply}) or newer than this release knows (upgrade txmsg). The message names
 * the version table, both versions and what to run.
 */
public class SchemaVersionException extends TxMessagingException {
  private static final long serialVersionUID = 1L;

  private final transient SchemaStatus status;

  /**
   * @param status a status whose state is not {@link SchemaStatus.State#CURRENT}
   * @throws IllegalArgumentException for a current schema
   */
  public SchemaVersionException(SchemaStatus status) {
    super(message(status));
    this.status = status;
  }

  /** What was found. */
  public SchemaStatus status() {
    return status;
  }

  private static String message(SchemaStatus s) {
    String apply =
        "run `txmsg schema apply --jdbc-url <url> --prefix "
            + s.prefix()
            + "` (or start with autoCreateSchema=true)";
    return switch (s.state()) {
      case MISSING ->
          "the txmsg tables with prefix "
              + s.prefix()
              + " are not installed ("
              + s.missing()
              + "); this release needs schema V"
              + s.supported()
              + ": "
              + apply;
      case OLDER ->
          "the txmsg schema is at "
              + s.describe()
              + " according to "
              + s.table()
              + "; this release needs V"
              + s.supported()
              + ": "
              + apply
              + ". The upgrade is additive: instances of the earlier release keep running on it";
      case NEWER ->
          "the txmsg schema is at V"
              + s.installed()
              + " according to "
              + s.table()
              + "; this release understands up to V"
              + s.supported()
              + ": upgrade txmsg to a release that knows V"
              + s.installed()
              + " (a schema is never downgraded)";
      case CURRENT -> throw new IllegalArgumentException("schema is current: " + s);
    };
  }
}
