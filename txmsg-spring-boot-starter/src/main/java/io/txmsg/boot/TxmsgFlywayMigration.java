package io.txmsg.boot;

import io.txmsg.store.Dialect;
import io.txmsg.store.schema.SchemaScripts;
import io.txmsg.store.schema.SchemaStatus;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * Runs txmsg's schema files ({@code io/txmsg/store/flyway/<vendor>/}, placeholder {@code
 * txmsg_prefix}; the same files {@code txmsg schema apply} runs) with a Flyway instance of their
 * own and its own history table, {@code flyway_<prefix>history} ({@code flyway_txmsg_history} for
 * the default prefix): never the application's {@code flyway_schema_history}, never its {@code
 * db/migration}. Runs once, when the bean is created, before the runtimes start (they depend on
 * it). The migrations record the version in {@code <prefix>schema} as {@code txmsg schema apply}
 * does, so the runtimes' schema check accepts the result.
 *
 * <p>A database that {@code txmsg schema apply} or {@code auto-create-schema} set up has no txmsg
 * Flyway history yet: it is baselined at the version it holds, and later versions run normally.
 */
final class TxmsgFlywayMigration implements InitializingBean {
  private static final Logger log = LoggerFactory.getLogger(TxmsgFlywayMigration.class);

  private final DataSource dataSource;
  private final Set<String> prefixes;

  /**
   * @param dataSource the application's DataSource, where the txmsg tables are
   * @param prefixes the table prefixes of the runtimes (one set of tables each)
   */
  TxmsgFlywayMigration(DataSource dataSource, Set<String> prefixes) {
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
        SchemaBeforeMigration.check(dataSource, prefix, "Flyway", "txmsg.flyway.enabled");
    Dialect dialect = checked.dialect();
    SchemaStatus status = checked.status();
    String history = history(prefix);
    MigrateResult result =
        Flyway.configure()
            .dataSource(dataSource)
            .table(history)
            .locations(SchemaScripts.flywayLocation(dialect))
            .placeholders(Map.of("txmsg_prefix", prefix))
            // The application's tables share the schema: without a txmsg history, start one at the
            // version the database holds (0: nothing yet, so V1 runs).
            .baselineOnMigrate(true)
            .baselineVersion(String.valueOf(status.installed()))
            .load()
            .migrate();
    log.info(
        "txmsg Flyway migration of prefix {} ({} history {}): {} applied, schema version {}",
        prefix,
        dialect,
        history,
        result.migrationsExecuted,
        result.targetSchemaVersion != null ? result.targetSchemaVersion : status.installed());
  }

  /** The txmsg history table of a prefix: flyway_txmsg_history for the default. */
  static String history(String prefix) {
    return "flyway_" + prefix + "history";
  }
}
