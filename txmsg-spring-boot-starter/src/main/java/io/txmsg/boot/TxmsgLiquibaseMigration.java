package io.txmsg.boot;

import io.txmsg.store.Dialect;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.store.schema.SchemaScripts;
import io.txmsg.store.schema.SchemaStatus;
import java.sql.Connection;
import java.util.Set;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * Runs txmsg's Liquibase changelog ({@value SchemaScripts#LIQUIBASE_CHANGELOG}: the same schema
 * files as Flyway and {@code txmsg schema apply}, parameter {@code txmsg_prefix}) with a Liquibase
 * of its own and history tables of its own, {@code liquibase_<prefix>changelog} and {@code
 * liquibase_<prefix>lock} ({@code liquibase_txmsg_changelog} for the default prefix): never the
 * application's {@code DATABASECHANGELOG}, never its master changelog. Runs once, when the bean is
 * created, before the runtimes start (they depend on it). The files record the version in {@code
 * <prefix>schema} as {@code txmsg schema apply} does, so the runtimes' schema check accepts the
 * result.
 *
 * <p>A database that {@code txmsg schema apply}, {@code auto-create-schema} or Flyway set up has no
 * txmsg Liquibase history yet: it is synced to the tag of the version it holds ({@code
 * txmsg-V<n>}), and later versions run normally.
 */
final class TxmsgLiquibaseMigration implements InitializingBean {
  private static final Logger log = LoggerFactory.getLogger(TxmsgLiquibaseMigration.class);

  private final DataSource dataSource;
  private final Set<String> prefixes;

  /**
   * @param dataSource the application's DataSource, where the txmsg tables are
   * @param prefixes the table prefixes of the runtimes (one set of tables each)
   */
  TxmsgLiquibaseMigration(DataSource dataSource, Set<String> prefixes) {
    this.dataSource = dataSource;
    this.prefixes = prefixes;
  }

  @Override
  public void afterPropertiesSet() throws Exception {
    for (String prefix : prefixes) {
      migrate(prefix);
    }
  }

  private void migrate(String prefix) throws Exception {
    SchemaBeforeMigration checked =
        SchemaBeforeMigration.check(dataSource, prefix, "Liquibase", "txmsg.liquibase.enabled");
    Dialect dialect = checked.dialect();
    SchemaStatus status = checked.status();
    try (Connection c = dataSource.getConnection()) {
      Database database =
          DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
      database.setDatabaseChangeLogTableName(changelogTable(prefix));
      database.setDatabaseChangeLogLockTableName(lockTable(prefix));
      Liquibase liquibase =
          new Liquibase(
              SchemaScripts.LIQUIBASE_CHANGELOG,
              new ClassLoaderResourceAccessor(TxmsgLiquibaseMigration.class.getClassLoader()),
              database);
      liquibase.setChangeLogParameter("txmsg_prefix", prefix);
      int unrun = liquibase.listUnrunChangeSets(new Contexts(), new LabelExpression()).size();
      // Installed without this history (auto-create, `txmsg schema apply`, Flyway): every
      // changeset is unrun although the tables exist; take the database over at its version.
      if (status.installed() > 0 && unrun == 2 * SchemaInstaller.VERSION) {
        liquibase.changeLogSync(
            "txmsg-V" + status.installed(), new Contexts(), new LabelExpression());
        log.info(
            "txmsg Liquibase: prefix {} was at V{} without a txmsg Liquibase history; synced {}"
                + " to tag txmsg-V{}",
            prefix,
            status.installed(),
            changelogTable(prefix),
            status.installed());
      }
      liquibase.update(new Contexts(), new LabelExpression());
    }
    log.info(
        "txmsg Liquibase migration of prefix {} ({} history {}): schema version {}",
        prefix,
        dialect,
        changelogTable(prefix),
        new SchemaMigrator(dataSource, TxmsgStore.of(dialect, prefix)).check().installed());
  }

  /** The txmsg changelog table of a prefix: liquibase_txmsg_changelog for the default. */
  static String changelogTable(String prefix) {
    return "liquibase_" + prefix + "changelog";
  }

  /** The txmsg lock table of a prefix: liquibase_txmsg_lock for the default. */
  static String lockTable(String prefix) {
    return "liquibase_" + prefix + "lock";
  }
}
