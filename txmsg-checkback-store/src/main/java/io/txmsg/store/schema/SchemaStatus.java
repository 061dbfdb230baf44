package io.txmsg.store.schema;

/**
 * What schema a database holds for one table prefix, as {@link SchemaMigrator#check} read it.
 *
 * @param prefix the table prefix
 * @param installed the installed version: the {@code ${prefix}schema} row (0 while an install has
 *     not completed V1); without a row, 1 when the journal table exists (installed by a release
 *     before schema versions), else 0 (nothing)
 * @param versionTable whether {@code ${prefix}schema} exists
 * @param versionRow whether it holds the version row
 */
public record SchemaStatus(String prefix, int installed, boolean versionTable, boolean versionRow) {
  /** How the installed version relates to the one this release needs. */
  public enum State {
    /** No txmsg tables with this prefix, or an install that did not complete V1. */
    MISSING,
    /** An earlier version: {@code txmsg schema apply} (or autoCreateSchema) upgrades it. */
    OLDER,
    /** The version this release installs ({@link SchemaInstaller#VERSION}). */
    CURRENT,
    /** A version this release does not know: written by a newer txmsg. */
    NEWER
  }

  /** What {@link SchemaScripts#plan} assumes for a database that has no txmsg tables. */
  public static SchemaStatus empty(String prefix) {
    return new SchemaStatus(prefix, 0, false, false);
  }

  /** The version this release installs and needs. */
  public int supported() {
    return SchemaInstaller.VERSION;
  }

  /** The version table's name. */
  public String table() {
    return prefix + "schema";
  }

  public State state() {
    if (installed == 0) {
      return State.MISSING;
    }
    if (installed < supported()) {
      return State.OLDER;
    }
    return installed == supported() ? State.CURRENT : State.NEWER;
  }

  /** One line for people: "V2", "V1 (txmsg_journal without a version in ...)", "none (...)". */
  public String describe() {
    if (installed == 0) {
      return "none (" + missing() + ")";
    }
    return versionRow
        ? "V" + installed
        : "V"
            + installed
            + " ("
            + prefix
            + "journal without a version in "
            + table()
            + ": installed by a release before schema versions)";
  }

  /** Why nothing counts as installed. */
  String missing() {
    return versionRow
        ? "an install began and did not complete V1"
        : "no " + prefix + "journal, no version in " + table();
  }
}
