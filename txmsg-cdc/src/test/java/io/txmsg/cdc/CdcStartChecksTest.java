package io.txmsg.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.schema.SchemaVersionException;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.testkit.transport.TestTransport;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checks the relay makes before it reads anything: each misconfiguration fails {@code start()}
 * (or {@code build()}) with a message that says what to set or run. The broker plays no part here:
 * the in-memory transport stands in.
 */
class CdcStartChecksTest {
  /** No broker: the checks fail the start before the producer channel opens. */
  private final EmbeddedRocketMQ mq = null;

  static Stream<TestDatabase> logDatabases() {
    return CdcFixture.logDatabases().stream();
  }

  static Stream<TestDatabase> postgresql() {
    return logDatabases().filter(d -> d == TestDatabase.POSTGRESQL);
  }

  static Stream<TestDatabase> mariadb() {
    return logDatabases().filter(d -> d == TestDatabase.MARIADB);
  }

  @Test
  @DatabaseIndependent
  void buildRefusesH2SayingWhichDatabasesHaveALog() {
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
      assertThatThrownBy(
              () ->
                  CdcRelay.builder()
                      .dataSource(db.dataSource())
                      .storeId("s1")
                      .source(CdcSource.of("localhost", 5432, "db").withCredentials("u", ""))
                      .transport(new InMemoryTransport())
                      .build())
          .isInstanceOf(InvalidSettingsException.class)
          .hasMessageContaining("cdc.dataSource")
          .hasMessageContaining("H2")
          .hasMessageContaining("PostgreSQL (wal_level=logical)")
          .hasMessageContaining("MariaDB (binlog_format=ROW)")
          .satisfies(
              e ->
                  assertThat(((InvalidSettingsException) e).setting()).isEqualTo("cdc.dataSource"));
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("logDatabases")
  void startRefusesASchemaOlderThanV4(TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(TestTransport.IN_MEMORY, kind, mq)) {
      f.admin("UPDATE txmsg_schema SET version = 3 WHERE name = 'txmsg'");
      CdcRelay relay = f.relay(s -> s).build();
      f.closeLater(relay);
      assertThatThrownBy(relay::start)
          .isInstanceOf(SchemaVersionException.class)
          .hasMessageContaining("this release needs V" + SchemaInstaller.VERSION);
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("logDatabases")
  void startRefusesAnAccountThatCannotLogIn(TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(TestTransport.IN_MEMORY, kind, mq)) {
      CdcSource wrong = f.source().withCredentials("txmsg_cdc_test_nobody", "wrong");
      CdcRelay relay = f.relay(s -> s).source(wrong).build();
      f.closeLater(relay);
      assertThatThrownBy(relay::start)
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining("cannot log in")
          .hasMessageContaining("txmsg_cdc_test_nobody@");
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("postgresql")
  void postgresqlAMissingPublicationIsCreatedOrNamedWithItsStatement(TestDatabase kind)
      throws Exception {
    try (CdcFixture f = new CdcFixture(TestTransport.IN_MEMORY, kind, mq)) {
      String schema = f.adminQuery("SELECT current_schema()");
      CdcRelay refused = f.relay(s -> s.withPublication(f.publication, false)).build();
      f.closeLater(refused);
      assertThatThrownBy(refused::start)
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining(
              "publication "
                  + f.publication
                  + " does not exist: run CREATE PUBLICATION "
                  + f.publication
                  + " FOR TABLE "
                  + schema
                  + ".txmsg_journal WITH (publish = 'insert');");

      CdcRelay created = f.relay(s -> s).build();
      f.closeLater(created);
      created.start();
      assertThat(
              f.adminQuery(
                  "SELECT pubinsert AND NOT pubupdate AND NOT pubdelete AND NOT pubtruncate"
                      + " FROM pg_publication WHERE pubname = '"
                      + f.publication
                      + "'"))
          .isEqualTo("t");
      assertThat(
              f.adminQuery(
                  "SELECT string_agg(schemaname || '.' || tablename, ',') FROM pg_publication_tables"
                      + " WHERE pubname = '"
                      + f.publication
                      + "'"))
          .isEqualTo(schema + ".txmsg_journal");
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("postgresql")
  void postgresqlAPublicationOfOtherOperationsOrTablesIsRefusedWithTheFix(TestDatabase kind)
      throws Exception {
    try (CdcFixture f = new CdcFixture(TestTransport.IN_MEMORY, kind, mq)) {
      String schema = f.adminQuery("SELECT current_schema()");
      f.admin("CREATE PUBLICATION " + f.publication + " FOR TABLE " + schema + ".txmsg_journal");
      CdcRelay allOperations = f.relay(s -> s).build();
      f.closeLater(allOperations);
      assertThatThrownBy(allOperations::start)
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining(
              "publishes more than inserts: run ALTER PUBLICATION "
                  + f.publication
                  + " SET (publish = 'insert');");

      f.admin("ALTER PUBLICATION " + f.publication + " SET (publish = 'insert')");
      f.admin("ALTER PUBLICATION " + f.publication + " ADD TABLE " + schema + ".txmsg_attempt");
      CdcRelay twoTables = f.relay(s -> s).build();
      f.closeLater(twoTables);
      assertThatThrownBy(twoTables::start)
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining("not the journal alone: run ALTER PUBLICATION " + f.publication)
          .hasMessageContaining("SET TABLE " + schema + ".txmsg_journal;");
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("postgresql")
  void postgresqlARoleWithoutReplicationIsToldTheGrant(TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(TestTransport.IN_MEMORY, kind, mq)) {
      String role = CdcFixture.NAME_PREFIX + "r" + UUID.randomUUID().toString().substring(0, 8);
      f.admin("CREATE ROLE " + role + " LOGIN");
      try {
        CdcRelay relay = f.relay(s -> s).source(f.source().withCredentials(role, "")).build();
        f.closeLater(relay);
        assertThatThrownBy(relay::start)
            .isInstanceOf(CdcSetupException.class)
            .hasMessageContaining("role " + role + " may not open a replication connection")
            .hasMessageContaining("ALTER ROLE " + role + " REPLICATION;");
      } finally {
        f.admin("DROP ROLE " + role);
      }
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("mariadb")
  void mariadbAUserWithoutReplicationGrantsIsToldEach(TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(TestTransport.IN_MEMORY, kind, mq)) {
      String user = CdcFixture.NAME_PREFIX + UUID.randomUUID().toString().substring(0, 8);
      String database = f.adminQuery("SELECT DATABASE()");
      f.admin("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw'");
      f.admin("CREATE USER '" + user + "'@'localhost' IDENTIFIED BY 'pw'");
      try {
        for (String host : List.of("%", "localhost")) {
          f.admin("GRANT SELECT ON " + database + ".* TO '" + user + "'@'" + host + "'");
        }
        CdcSource account = f.source().withCredentials(user, "pw");
        CdcRelay noReplica = f.relay(s -> s).source(account).build();
        f.closeLater(noReplica);
        assertThatThrownBy(noReplica::start)
            .isInstanceOf(CdcSetupException.class)
            .hasMessageContaining("user " + user + " may not read the binlog as a replica")
            .hasMessageContaining("GRANT REPLICATION SLAVE ON *.* TO '" + user + "'@'<host>';");

        for (String host : List.of("%", "localhost")) {
          f.admin("GRANT REPLICATION SLAVE ON *.* TO '" + user + "'@'" + host + "'");
        }
        CdcRelay noMonitor = f.relay(s -> s).source(account).build();
        f.closeLater(noMonitor);
        assertThatThrownBy(noMonitor::start)
            .isInstanceOf(CdcSetupException.class)
            .hasMessageContaining("user " + user + " may not list the binary logs")
            .hasMessageContaining("GRANT BINLOG MONITOR ON *.* TO '" + user + "'@'<host>';");
      } finally {
        f.admin("DROP USER '" + user + "'@'%'");
        f.admin("DROP USER '" + user + "'@'localhost'");
      }
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("mariadb")
  void mariadbTheServersOwnServerIdIsRefused(TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(TestTransport.IN_MEMORY, kind, mq)) {
      long own = Long.parseLong(f.adminQuery("SELECT @@global.server_id"));
      CdcRelay relay = f.relay(s -> s.withServerId(own)).build();
      f.closeLater(relay);
      assertThatThrownBy(relay::start)
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining("cdc.serverId " + own + " is the server's own server_id");
    }
  }
}
