package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.txmsg.store.Dialect;
import io.txmsg.store.schema.SchemaScripts;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code schema check|print|apply} on every enabled database, and {@code print} offline. */
class SchemaCommandTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  @TempDir Path dir;

  private static void sql(DataSource ds, String... statements) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  /** What a release before schema versions installed. */
  private static void installV1(DataSource ds) throws Exception {
    Dialect d;
    try (Connection c = ds.getConnection()) {
      d = Dialect.detect(c);
    }
    sql(ds, SchemaScripts.version(d, "txmsg_", 1).toArray(String[]::new));
  }

  private static void assertOneLineNoTrace(Cli.Run run) {
    assertThat(run.err().strip().lines()).hasSize(1);
    assertThat(run.all()).doesNotContain("\tat ", "Exception");
  }

  @ParameterizedTest
  @MethodSource(DB)
  void anEmptyDatabaseIsReportedPrintedAndInstalled(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      Cli cli = new Cli(db, dir);

      Cli.Run check = cli.run("schema", "check");
      assertThat(check.exitCode()).isEqualTo(TxmsgCli.FINDINGS);
      assertThat(check.out()).contains("txmsg_schema", "MISSING", "V6");
      assertThat(check.err())
          .startsWith(
              "txmsg: the txmsg tables with prefix txmsg_ are not installed (no txmsg_journal")
          .contains("txmsg schema apply --jdbc-url <url> --prefix txmsg_");
      assertOneLineNoTrace(check);

      Cli.Run print = cli.run("schema", "print");
      assertThat(print.exitCode()).as(print.err()).isZero();
      assertThat(print.out())
          .contains("install -> V6")
          .contains("CREATE TABLE txmsg_schema")
          .contains("CREATE TABLE txmsg_journal")
          .contains("ALTER TABLE txmsg_journal ADD COLUMN publish_mode")
          .contains("UPDATE txmsg_schema SET version = 2")
          .contains("CREATE TABLE txmsg_archive_run")
          .contains("UPDATE txmsg_schema SET version = 3")
          .contains("CREATE TABLE txmsg_cdc_relay")
          .contains("UPDATE txmsg_schema SET version = 4")
          .contains("CREATE TABLE txmsg_instance")
          .contains("UPDATE txmsg_schema SET version = 5")
          .contains("DROP INDEX IF EXISTS txmsg_journal_business_key_ix")
          .contains("UPDATE txmsg_schema SET version = 6");
      assertThat(cli.run("schema", "check").exitCode())
          .as("print changes nothing")
          .isEqualTo(TxmsgCli.FINDINGS);

      Cli.Run apply = cli.run("schema", "apply");
      assertThat(apply.exitCode()).as(apply.err()).isZero();
      assertThat(apply.out()).contains("txmsg_schema: installed to V6");

      Cli.Run current = cli.run("schema", "check", "--json");
      assertThat(current.exitCode()).as(current.err()).isZero();
      JsonNode doc = current.json();
      assertThat(doc.get("state").asText()).isEqualTo("CURRENT");
      assertThat(doc.get("installed").asInt()).isEqualTo(6);
      assertThat(doc.get("business_key_index").asBoolean()).as("opt-in since V6").isFalse();
      assertThat(doc.get("version_recorded").asBoolean()).isTrue();
      assertThat(current.err()).isEmpty();

      Cli.Run again = cli.run("schema", "apply");
      assertThat(again.exitCode()).isZero();
      assertThat(again.out()).contains("already at V6, nothing to do");
      assertThat(cli.run("schema", "print").out()).contains("nothing to do");

      // The prefix is honoured: another prefix is still missing, then installed on its own.
      assertThat(cli.run("schema", "check", "--prefix", "billing_").exitCode())
          .isEqualTo(TxmsgCli.FINDINGS);
      Cli.Run billing = cli.run("schema", "apply", "--prefix", "billing_", "--json");
      assertThat(billing.exitCode()).as(billing.err()).isZero();
      assertThat(billing.json().get("table").asText()).isEqualTo("billing_schema");
      assertThat(billing.json().get("from").asInt()).isZero();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aDatabaseOfThePreviousReleaseIsUpgradedInPlace(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      installV1(db.dataSource());
      Cli cli = new Cli(db, dir);

      Cli.Run check = cli.run("schema", "check");
      assertThat(check.exitCode()).isEqualTo(TxmsgCli.FINDINGS);
      assertThat(check.out()).contains("OLDER", "installed by a release before schema versions");
      assertThat(check.err())
          .contains("at V1", "this release needs V6", "txmsg schema apply --jdbc-url <url>");
      assertOneLineNoTrace(check);

      Cli.Run print = cli.run("schema", "print", "--json");
      assertThat(print.exitCode()).as(print.err()).isZero();
      assertThat(print.json().get("from").asInt()).isEqualTo(1);
      String statements = print.json().get("statements").toString();
      assertThat(statements)
          .contains("CREATE TABLE txmsg_schema", "ADD COLUMN message_group")
          .doesNotContain("CREATE TABLE txmsg_journal");

      Cli.Run apply = cli.run("schema", "apply", "--json");
      assertThat(apply.exitCode()).as(apply.err()).isZero();
      assertThat(apply.json().get("from").asInt()).isEqualTo(1);
      assertThat(apply.json().get("to").asInt()).isEqualTo(6);
      assertThat(apply.json().get("changed").asBoolean()).isTrue();
      assertThat(cli.run("schema", "check").exitCode()).isZero();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aNewerSchemaIsRefusedByEverySubcommand(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      Cli cli = new Cli(db, dir);
      assertThat(cli.run("schema", "apply").exitCode()).isZero();
      sql(db.dataSource(), "UPDATE txmsg_schema SET version = 99 WHERE name = 'txmsg'");
      for (String sub : new String[] {"check", "print", "apply", "business-key-index"}) {
        Cli.Run run = cli.run("schema", sub);
        assertThat(run.exitCode()).as(sub).isEqualTo(TxmsgCli.FINDINGS);
        assertThat(run.err())
            .as(sub)
            .contains("at V99 according to txmsg_schema", "understands up to V6", "upgrade txmsg");
        assertOneLineNoTrace(run);
      }
    }
  }

  /**
   * Schema V6 made the journal's business-key index opt-in: a search by business key still answers
   * without it and says on stderr that it reads the whole journal; {@code schema
   * business-key-index} creates the index once, after which the searches say nothing more.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void theBusinessKeyIndexIsOptInAndASearchWithoutItSaysSo(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      rows.journal("e1", "PENDING", "payment", "Paid", "order-77", java.time.Duration.ofMinutes(5));
      Cli cli = new Cli(db, dir);
      String note = "txmsg_journal has no index on business_key (opt-in since schema V6)";

      Cli.Run trace = cli.run("trace", "order-77");
      assertThat(trace.exitCode()).as(trace.err()).isZero();
      assertThat(trace.out()).contains("e1", "journal");
      assertThat(trace.err()).contains(note, "txmsg schema business-key-index");
      Cli.Run byId = cli.run("trace", "e1");
      assertThat(byId.err()).as("an event id needs no business-key search").doesNotContain(note);
      Cli.Run list = cli.run("journal", "list", "--business-key", "order-77");
      assertThat(list.exitCode()).as(list.err()).isZero();
      assertThat(list.out()).contains("e1");
      assertThat(list.err()).contains(note);
      assertThat(cli.run("schema", "check").out()).contains("business_key_index", "absent");

      Cli.Run print = cli.run("schema", "business-key-index", "--print");
      assertThat(print.exitCode()).as(print.err()).isZero();
      assertThat(print.out())
          .contains("CREATE INDEX")
          .contains("txmsg_journal_business_key_ix ON txmsg_journal (business_key)");
      assertThat(cli.run("trace", "order-77").err()).as("--print ran nothing").contains(note);

      Cli.Run create = cli.run("schema", "business-key-index");
      assertThat(create.exitCode()).as(create.err()).isZero();
      assertThat(create.out())
          .contains("txmsg_journal: creating the business-key index: CREATE INDEX")
          .contains("txmsg_journal: business-key index created in");
      Cli.Run again = cli.run("schema", "business-key-index", "--json");
      assertThat(again.exitCode()).as(again.err()).isZero();
      assertThat(again.json().get("created").asBoolean()).isFalse();

      Cli.Run indexed = cli.run("trace", "order-77");
      assertThat(indexed.out()).contains("e1");
      assertThat(indexed.err()).doesNotContain(note);
      assertThat(cli.run("journal", "list", "--business-key", "order-77").err())
          .doesNotContain(note);
      assertThat(cli.run("schema", "check").out()).contains("business_key_index", "present");
    }
  }

  @Test
  @DatabaseIndependent
  void printWithADialectNeedsNoDatabase() {
    Cli.Run full =
        Cli.rawWithoutEnvironment(
            "schema", "print", "--dialect", "postgresql", "--prefix", "billing_");
    assertThat(full.exitCode()).as(full.err()).isZero();
    assertThat(full.out())
        .contains("postgresql, prefix billing_: install -> V6")
        .contains("CREATE TABLE billing_schema")
        .contains("CREATE TABLE billing_journal")
        .contains("BYTEA")
        .contains("ALTER TABLE billing_journal ADD COLUMN publish_mode");

    Cli.Run fromV1 =
        Cli.rawWithoutEnvironment("schema", "print", "--dialect", "mariadb", "--from", "1");
    assertThat(fromV1.exitCode()).as(fromV1.err()).isZero();
    assertThat(fromV1.out())
        .contains("mysql, prefix txmsg_: V1 -> V6", "DATETIME(3)", "CREATE TABLE txmsg_schema")
        .contains("INSERT INTO txmsg_schema (name, version, applied_at) VALUES ('txmsg', 1,")
        .doesNotContain("CREATE TABLE txmsg_journal");

    Cli.Run current =
        Cli.rawWithoutEnvironment("schema", "print", "--dialect", "h2", "--from", "6");
    assertThat(current.out()).contains("nothing to do");
  }
}
