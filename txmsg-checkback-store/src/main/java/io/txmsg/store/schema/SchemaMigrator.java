package io.txmsg.store.schema;

import io.txmsg.api.TxMessagingException;
import io.txmsg.store.Dialect;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.ops.OpsQueries;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads, checks and upgrades the txmsg schema of one table prefix (docs/architecture.md, "Schema
 * versions"). The installed version is the row of {@code ${prefix}schema}; a database with the
 * txmsg tables but no such row was installed by a release before schema versions and is at V1.
 *
 * <p>{@link #apply} installs or upgrades in place: instances starting together take a database lock
 * ({@link TxmsgStore#lockSchema}) and the first one upgrades while the others wait and then find
 * nothing to do. Every statement commits on its own (DDL does anyway on MariaDB and H2), the
 * version is recorded after each version's statements, and a statement whose table, column or index
 * already exists counts as done: an interrupted upgrade is finished by running it again.
 */
public final class SchemaMigrator {
  /** How long {@link #apply} waits for another instance's upgrade. */
  public static final Duration DEFAULT_LOCK_WAIT = Duration.ofMinutes(2);

  private static final Logger log = LoggerFactory.getLogger(SchemaMigrator.class);

  private final DataSource dataSource;
  private final TxmsgStore store;
  private final Duration lockWait;

  public SchemaMigrator(DataSource dataSource, TxmsgStore store) {
    this(dataSource, store, DEFAULT_LOCK_WAIT);
  }

  /**
   * @param dataSource the database; H2 takes a second connection from it for the lock
   * @param lockWait how long {@link #apply} waits for another instance's upgrade
   */
  public SchemaMigrator(DataSource dataSource, TxmsgStore store, Duration lockWait) {
    this.dataSource = dataSource;
    this.store = store;
    this.lockWait = lockWait;
  }

  /**
   * What a runtime calls at start: detects the dialect and, with {@code createSchema}, installs the
   * schema or upgrades it in place to {@link SchemaInstaller#VERSION} (under a database lock:
   * instances starting together upgrade once); without, it requires exactly that version.
   *
   * @return the store of {@code dataSource} and {@code prefix}
   * @throws SchemaVersionException when the schema is missing or older (and not to be created), or
   *     newer than this release knows; the message names the versions and what to run
   * @throws TxMessagingException when the database cannot be reached or the schema not created (the
   *     cause says why)
   */
  public static TxmsgStore open(DataSource dataSource, String prefix, boolean createSchema) {
    try {
      TxmsgStore store = TxmsgStore.detect(dataSource, prefix);
      SchemaMigrator schema = new SchemaMigrator(dataSource, store);
      if (createSchema) {
        schema.apply();
      } else {
        schema.verify();
      }
      return store;
    } catch (SchemaVersionException e) {
      throw e; // says what to run already
    } catch (SQLException | RuntimeException e) {
      throw new TxMessagingException(
          "the txmsg tables (prefix " + prefix + ") could not be opened: " + e.getMessage(), e);
    }
  }

  /** Reads the installed version (no lock: an upgrade running elsewhere may change it). */
  public SchemaStatus check() throws SQLException {
    // auto-commit: a probe of a missing table must not abort a PostgreSQL transaction
    return onAutoCommit(c -> read(c, store.prefix()));
  }

  /** Work on a connection of its own in auto-commit mode. */
  private interface AutoCommitWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Runs {@code work} on a fresh connection switched to auto-commit, restoring the mode after. */
  private <T> T onAutoCommit(AutoCommitWork<T> work) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(true);
      try {
        return work.run(c);
      } finally {
        c.setAutoCommit(auto);
      }
    }
  }

  /**
   * The statements {@link #apply} would run now.
   *
   * @throws SchemaVersionException when the database holds a version this release does not know
   */
  public SchemaPlan plan() throws SQLException {
    return SchemaScripts.plan(store.dialect(), store.prefix(), check());
  }

  /**
   * Startup without autoCreateSchema: the schema must be exactly the version this release needs.
   *
   * @throws SchemaVersionException naming the versions and what to run, otherwise
   */
  public SchemaStatus verify() throws SQLException {
    SchemaStatus status = check();
    if (status.state() != SchemaStatus.State.CURRENT) {
      throw new SchemaVersionException(status);
    }
    return status;
  }

  /**
   * Installs the schema, or upgrades it in place, to {@link SchemaInstaller#VERSION}; does nothing
   * (and takes no lock) when it is current.
   *
   * @throws SchemaVersionException when the database holds a version this release does not know
   * @throws IllegalStateException when another instance held the upgrade lock for the whole wait
   */
  public SchemaUpgrade apply() throws SQLException {
    String prefix = store.prefix();
    try (Connection c = dataSource.getConnection()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(true);
      try {
        SchemaStatus found = read(c, prefix);
        if (found.state() == SchemaStatus.State.CURRENT) {
          return new SchemaUpgrade(prefix, found.installed(), found.installed(), 0, 0);
        }
        if (found.state() == SchemaStatus.State.NEWER) {
          throw new SchemaVersionException(found);
        }
        // Before the lock: H2's lock is a row in this table. Creating it is additive, and a
        // concurrent creator is detected below.
        createVersionTable(c, store.dialect(), prefix);
        try (Dialect.SchemaLock lock = store.lockSchema(c, dataSource, lockWait)) {
          if (lock == null) {
            throw new IllegalStateException(
                "another session held the txmsg schema lock for prefix "
                    + prefix
                    + " for more than "
                    + lockWait.toSeconds()
                    + " s: an upgrade is running (or waits for a table lock held by a long"
                    + " transaction on the txmsg tables); try again when it is done");
          }
          // Read again under the lock: a concurrent instance may have upgraded meanwhile.
          SchemaPlan plan = SchemaScripts.plan(store.dialect(), prefix, read(c, prefix));
          return run(c, store.dialect(), plan);
        }
      } finally {
        c.setAutoCommit(auto);
      }
    }
  }

  /**
   * Runs a plan on this auto-commit connection without any lock: for {@link
   * SchemaInstaller#install} on a database only the caller uses, and for {@link #apply} under its
   * lock.
   */
  static SchemaUpgrade run(Connection c, Dialect dialect, SchemaPlan plan) throws SQLException {
    int ran = 0;
    int skipped = 0;
    try (Statement s = c.createStatement()) {
      for (SchemaPlan.Step step : plan.steps()) {
        for (String sql : step.statements()) {
          try {
            s.execute(sql);
            ran++;
          } catch (SQLException e) {
            if (!dialect.isAlreadyExists(e)) {
              throw failed(plan, step, sql, e);
            }
            log.info(
                "txmsg schema {}: already applied, skipped: {} ({})",
                step.title(),
                firstLine(sql),
                e.getMessage());
            skipped++;
          }
        }
        if (step.recordVersion() != null) {
          int rows;
          try {
            rows = s.executeUpdate(step.recordVersion());
          } catch (SQLException e) {
            throw failed(plan, step, step.recordVersion(), e);
          }
          if (rows != 1) {
            throw new IllegalStateException(
                "the version row of "
                    + plan.prefix()
                    + "schema changed during the upgrade to "
                    + step.title()
                    + ": run the upgrade again");
          }
        }
        log.info("txmsg schema {}: {} applied", plan.prefix() + "schema", step.title());
      }
    }
    if (!plan.isEmpty()) {
      log.info(
          "txmsg schema {} upgraded from {} to V{} ({} statements, {} already applied)",
          plan.prefix() + "schema",
          plan.from() == 0 ? "nothing" : "V" + plan.from(),
          plan.to(),
          ran,
          skipped);
    }
    return new SchemaUpgrade(
        plan.prefix(), plan.from(), plan.isEmpty() ? plan.from() : plan.to(), ran, skipped);
  }

  /**
   * Whether an index serves the operators' search by business key: any valid journal index whose
   * first column is {@code business_key} (schema V6 made it opt-in).
   */
  public boolean businessKeyIndexed() throws SQLException {
    return onAutoCommit(new OpsQueries(store)::journalBusinessKeyIndexed);
  }

  /**
   * Creates the journal's opt-in index on {@code business_key} with the shipped statement ({@link
   * SchemaScripts#businessKeyIndex}), unless an index already serves that search. The statement
   * builds without blocking producers where the database can: CONCURRENTLY on PostgreSQL, online
   * (INPLACE, LOCK=NONE) on MariaDB; on H2 it locks the journal while it builds. It runs on an
   * auto-commit connection (PostgreSQL refuses CONCURRENTLY inside a transaction) and can take
   * minutes on a large journal.
   *
   * @return true when it created the index, false when one existed already (nothing was run)
   * @throws SchemaVersionException when the schema is not the version this release needs (V6 is
   *     what made the index opt-in; an older schema still has it)
   * @throws IllegalStateException when the statement ran and still no valid index serves the
   *     search: on PostgreSQL an INVALID index of that name, left by an interrupted build, which IF
   *     NOT EXISTS skipped (drop it and run again)
   * @throws SQLException when the statement failed (MariaDB: when it cannot build online)
   */
  public boolean createBusinessKeyIndex() throws SQLException {
    return createBusinessKeyIndex(sql -> {});
  }

  /**
   * {@link #createBusinessKeyIndex()}, telling {@code building} the statement just before it runs
   * (not at all when an index exists already): progress for a build that can take minutes.
   */
  public boolean createBusinessKeyIndex(java.util.function.Consumer<String> building)
      throws SQLException {
    verify();
    return onAutoCommit(
        c -> {
          OpsQueries ops = new OpsQueries(store);
          if (ops.journalBusinessKeyIndexed(c)) {
            return false;
          }
          String sql = SchemaScripts.businessKeyIndex(store.dialect(), store.prefix());
          building.accept(sql);
          long started = System.nanoTime();
          log.info("txmsg schema {}: creating the business-key index: {}", store.prefix(), sql);
          try (Statement s = c.createStatement()) {
            s.execute(sql);
          }
          if (!ops.journalBusinessKeyIndexed(c)) {
            throw new IllegalStateException(
                "ran "
                    + sql
                    + " and still no valid index of "
                    + store.prefix()
                    + "journal starts with business_key: an index named "
                    + store.prefix()
                    + "journal_business_key_ix exists but is not valid (on PostgreSQL, left"
                    + " INVALID by an interrupted CREATE INDEX CONCURRENTLY): DROP INDEX "
                    + store.prefix()
                    + "journal_business_key_ix and run this again");
          }
          log.info(
              "txmsg schema {}: business-key index created in {} ms",
              store.prefix(),
              Duration.ofNanos(System.nanoTime() - started).toMillis());
          return true;
        });
  }

  /** Reads the installed version on an auto-commit connection. */
  static SchemaStatus read(Connection c, String prefix) throws SQLException {
    boolean table = tableExists(c, prefix + "schema");
    if (table) {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(SchemaScripts.selectVersion(prefix))) {
        if (rs.next()) {
          return new SchemaStatus(prefix, rs.getInt(1), true, true);
        }
      }
    }
    // No version row: a database installed before schema versions is at V1 (also when an
    // upgrade of it stopped after creating the version table). An install by this release writes
    // the row (version 0) before V1's first statement, so an interrupted install is not read as
    // V1.
    int version = tableExists(c, prefix + "journal") ? 1 : 0;
    return new SchemaStatus(prefix, version, table, false);
  }

  private static void createVersionTable(Connection c, Dialect dialect, String prefix)
      throws SQLException {
    if (tableExists(c, prefix + "schema")) {
      return;
    }
    try (Statement s = c.createStatement()) {
      for (String sql : SchemaScripts.versionTable(dialect, prefix)) {
        s.execute(sql);
      }
    } catch (SQLException e) {
      // Another instance created it first (PostgreSQL may report that race as 23505 on its
      // catalog rather than 42P07): fine if it is there now.
      if (!tableExists(c, prefix + "schema")) {
        throw e;
      }
    }
  }

  /**
   * Probes a table. SQLState class 42 (syntax error or access rule violation: PostgreSQL 42P01,
   * MariaDB and H2 42S02) means it does not exist; anything else is a real failure.
   */
  static boolean tableExists(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
      return true;
    } catch (SQLException e) {
      if (e.getSQLState() != null && e.getSQLState().startsWith("42")) {
        return false;
      }
      throw e;
    }
  }

  private static SQLException failed(
      SchemaPlan plan, SchemaPlan.Step step, String sql, SQLException e) {
    return new SQLException(
        "txmsg schema "
            + step.title()
            + " ("
            + step.resource()
            + ") failed at `"
            + firstLine(sql)
            + "`: "
            + e.getMessage()
            + "; the statements before it are committed, run the upgrade again once fixed",
        e.getSQLState(),
        e.getErrorCode(),
        e);
  }

  private static String firstLine(String sql) {
    int nl = sql.indexOf('\n');
    return nl < 0 ? sql : sql.substring(0, nl) + " ...";
  }
}
