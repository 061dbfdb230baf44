package io.txmsg.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The README's demo, small: 200 orders with every fault on, on the embedded broker and H2, over
 * each transport, and in OUTBOX mode; paced at the default rate and unpaced (--rate 0, the harsher
 * case: a backlog builds). Asserts on the report object, never on the console output.
 */
class PaymentDemoTest {
  @ParameterizedTest
  @CsvSource({"grpc, half-message, 0", "remoting, half-message, 20", "remoting, outbox, 0"})
  void everyInvariantHoldsWithEveryFaultOn(String transport, String mode, String rate)
      throws Exception {
    ReconciliationReport report =
        PaymentDemo.run(
            DemoOptions.parse(
                "--orders", "200", "--transport", transport, "--mode", mode, "--rate", rate),
            System.out);
    report.print(System.out);

    assertThat(report.pending()).as("still pending").isEmpty();
    assertThat(report.checks()).hasSizeGreaterThanOrEqualTo(7);
    assertThat(report.checks())
        .allSatisfy(c -> assertThat(c.pass()).as(c.name() + ": " + c.detail()).isTrue());
    assertThat(report.allPass()).isTrue();
    assertThat(report.exitCode()).isZero();
    assertThat(report.figures().get("committed payments (payment rows)")).isEqualTo("200");
    // Every group's latency trend is reported (steady, or QUEUEING with what to do about it).
    assertThat(report.figures().keySet())
        .filteredOn(name -> name.endsWith(Reconciliation.QUEUEING))
        .hasSize(3);
  }

  static Stream<TestDatabase> logDatabases() {
    return TestDatabases.list().stream().filter(d -> d != TestDatabase.H2);
  }

  /** {@code --mode cdc} on a database with a log: the relay sends, every invariant holds. */
  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("logDatabases")
  void cdcModeHoldsEveryInvariantOnADatabaseWithALog(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      HikariDataSource ds = (HikariDataSource) db.dataSource();
      ReconciliationReport report =
          PaymentDemo.run(
              DemoOptions.parse(
                  "--orders",
                  "200",
                  "--transport",
                  "remoting",
                  "--mode",
                  "cdc",
                  "--jdbc-url",
                  db.jdbcUrl(),
                  "--user",
                  ds.getUsername(),
                  "--password",
                  ds.getPassword() == null ? "" : ds.getPassword()),
              System.out);
      report.print(System.out);
      assertThat(report.pending()).as("still pending").isEmpty();
      assertThat(report.checks())
          .allSatisfy(c -> assertThat(c.pass()).as(c.name() + ": " + c.detail()).isTrue());
      assertThat(report.exitCode()).isZero();
      assertThat(report.figures().get("committed payments (payment rows)")).isEqualTo("200");
    }
  }

  @Test
  void cdcModeOnH2SaysWhyNot() {
    assertThatThrownBy(() -> DemoOptions.parse("--mode", "cdc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("H2")
        .hasMessageContaining("change log")
        .hasMessageContaining("PostgreSQL (wal_level=logical) or MariaDB");
    assertThatThrownBy(() -> DemoOptions.parse("--mode", "cdc", "--jdbc-url", "jdbc:h2:mem:demo"))
        .hasMessageContaining("H2");
    assertThat(DemoMain.run(new String[] {"--mode", "cdc"})).isEqualTo(2);
  }

  @Test
  void badArgumentsExitWithTwo() {
    assertThat(DemoMain.run(new String[] {"--orders", "x"})).isEqualTo(2);
    assertThat(DemoMain.run(new String[] {"--no-such-flag"})).isEqualTo(2);
    assertThat(DemoMain.run(new String[] {"--transport", "amqp"})).isEqualTo(2);
    assertThat(DemoMain.run(new String[] {"--mode", "fire-and-forget"})).isEqualTo(2);
    assertThat(DemoMain.run(new String[] {"--rate", "-1"})).isEqualTo(2);
  }

  @Test
  void oneFailedInvariantOrAnythingStillPendingFailsTheRun() {
    ReconciliationReport failed = new ReconciliationReport();
    failed.check("holds", true, "");
    failed.check("broken", false, "1 row");
    assertThat(failed.allPass()).isFalse();
    assertThat(failed.exitCode()).isEqualTo(1);

    ReconciliationReport unsettled = new ReconciliationReport();
    unsettled.check("holds", true, "");
    unsettled.pending(java.util.List.of("commands PENDING/SENDING: 3"));
    assertThat(unsettled.exitCode()).isEqualTo(1);
  }
}
