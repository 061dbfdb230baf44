package io.txmsg.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.testkit.db.DatabaseIndependent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TimeZone;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.junit.jupiter.api.Test;

/** The relay's pure logic: conversions, settings checks, backoff. */
@DatabaseIndependent
class CdcUnitsTest {
  @Test
  void anEngineStoresItsPositionAfterItsFirstBatchThenOncePerInterval() {
    OffsetCommitTiming timing = new OffsetCommitTiming(Duration.ofSeconds(1));
    assertThat(timing.performCommit(0, Duration.ofMillis(5)))
        .as("no record yet: nothing to store")
        .isFalse();
    assertThat(timing.performCommit(1, Duration.ofMillis(10)))
        .as("the first batch, long before the interval")
        .isTrue();
    assertThat(timing.performCommit(3, Duration.ofMillis(20)))
        .as("later batches wait for the interval")
        .isFalse();
    assertThat(timing.performCommit(3, Duration.ofMillis(1_000))).isTrue();
  }

  @Test
  void theMetricsAFailedEngineLeftAreRemovedAndOnlyThisRelays() throws Exception {
    MBeanServer server = MBeanServerFactory.newMBeanServer();
    ObjectName mine =
        new ObjectName(
            "debezium.mariadb:type=connector-metrics,context=schema-history,server=txmsg_s1");
    ObjectName mineStreaming =
        new ObjectName(
            "debezium.postgres:type=connector-metrics,context=streaming,server=txmsg_s1");
    ObjectName other =
        new ObjectName(
            "debezium.mariadb:type=connector-metrics,context=schema-history,server=txmsg_s2");
    ObjectName notDebezium = new ObjectName("app:type=metrics,server=txmsg_s1");
    for (ObjectName n : new ObjectName[] {mine, mineStreaming, other, notDebezium}) {
      server.registerMBean(new StandardMBean(() -> {}, Runnable.class), n);
    }

    assertThat(StaleEngineMBeans.remove(server, "txmsg_s1")).isEqualTo(2);

    assertThat(server.isRegistered(mine)).isFalse();
    assertThat(server.isRegistered(mineStreaming)).isFalse();
    assertThat(server.isRegistered(other)).as("another relay's").isTrue();
    assertThat(server.isRegistered(notDebezium)).as("not Debezium's").isTrue();
    assertThat(StaleEngineMBeans.remove(server, "txmsg_s1")).as("nothing left").isZero();
  }

  @Test
  void aDebeziumWallClockTimestampIsTheInstantJdbcReadsInTheJvmZone() {
    TimeZone saved = TimeZone.getDefault();
    try {
      for (String zone : new String[] {"UTC", "Asia/Kolkata", "America/Sao_Paulo"}) {
        TimeZone.setDefault(TimeZone.getTimeZone(zone));
        LocalDateTime wall = LocalDateTime.of(2026, 3, 29, 2, 30, 15, 123_000_000);
        long debezium = wall.toInstant(ZoneOffset.UTC).toEpochMilli();
        // What the drivers give for the column: the wall clock in the JVM's zone.
        Instant jdbc = Timestamp.valueOf(wall).toInstant();
        assertThat(JournalImage.wallClock(debezium)).as(zone).isEqualTo(jdbc);
      }
      TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
      assertThat(JournalImage.wallClock(-1)).isEqualTo(Instant.ofEpochMilli(-1));
    } finally {
      TimeZone.setDefault(saved);
    }
  }

  @Test
  void offsetsRoundTripThroughTheirStoredJson() throws Exception {
    Map<ByteBuffer, ByteBuffer> data =
        Map.of(
            utf8("[\"txmsg\",{\"server\":\"s\"}]"),
            utf8("{\"file\":\"mariadb-bin.000002\",\"pos\":4}"));
    String json = TxmsgOffsetStore.encode(data);
    assertThat(TxmsgOffsetStore.decode(json)).isEqualTo(data);
    assertThat(TxmsgOffsetStore.decode(null)).isEmpty();
    assertThat(MariaDbLog.binlogFile(json)).isEqualTo("mariadb-bin.000002");
    assertThat(MariaDbLog.binlogFile("{\"k\":\"{\\\"lsn\\\":5}\"}")).isNull();
  }

  @Test
  void aJdbcUrlGivesHostPortAndDatabase() {
    CdcSource pg =
        CdcSource.fromJdbcUrl("jdbc:postgresql://db1:5433/shop?currentSchema=orders", "u", null);
    assertThat(pg.host()).isEqualTo("db1");
    assertThat(pg.port()).isEqualTo(5433);
    assertThat(pg.database()).isEqualTo("shop");
    assertThat(pg.toString()).doesNotContain("null").contains("u@db1:5433/shop");
    CdcSource maria = CdcSource.fromJdbcUrl("jdbc:mariadb://db2/app", "root", "secret");
    assertThat(maria.port()).isEqualTo(3306);
    assertThat(maria.toString()).doesNotContain("secret");
    assertThatThrownBy(() -> CdcSource.fromJdbcUrl("jdbc:h2:mem:x", "sa", ""))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("cdc.source");
    assertThatThrownBy(() -> CdcSource.of("h", 5432, "db").validate())
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("cdc.source.user");
  }

  @Test
  void settingsProblemsNameTheSetting() {
    CdcRelaySettings d = CdcRelaySettings.defaults();
    d.validate();
    assertThat(d.renewInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.pollInterval()).isEqualTo(Duration.ofMillis(10));
    assertThatThrownBy(() -> d.withLease(Duration.ofMillis(500)).validate())
        .hasMessageContaining("cdc.lease");
    assertThatThrownBy(() -> d.withSlotName("Bad-Name").validate())
        .hasMessageContaining("cdc.slotName");
    assertThatThrownBy(() -> d.withPublication("1pub", true).validate())
        .hasMessageContaining("cdc.publicationName");
    assertThatThrownBy(() -> d.withQueue(512, 512, 1).validate())
        .hasMessageContaining("cdc.maxQueueSize");
    assertThatThrownBy(() -> d.withServerId(-1).validate()).hasMessageContaining("cdc.serverId");
    assertThatThrownBy(() -> d.withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)).validate())
        .hasMessageContaining("cdc.backoffMax");
  }

  @Test
  void includeListEntriesMatchTheNameLiterally() {
    assertThat(LogSource.literal("txmsg_t_1.x")).isEqualTo("txmsg_t_1\\.x");
    assertThat("a.b".matches(LogSource.literal("a.b"))).isTrue();
    assertThat("axb".matches(LogSource.literal("a.b"))).isFalse();
  }

  private static ByteBuffer utf8(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }
}
