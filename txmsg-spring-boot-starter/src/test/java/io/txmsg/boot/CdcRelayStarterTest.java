package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.api.Envelope;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.cdc.CdcRelay;
import io.txmsg.cdc.CdcSource;
import io.txmsg.cdc.micrometer.CdcRelayMetrics;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.ReplicationSlots;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The starter's CDC relay: started beside a producer whose delivery mode is CDC, configured by
 * {@code txmsg.cdc.*} alone, reported in the {@code txmsg} health indicator and in Micrometer; and
 * the starts it refuses, each naming the property to set.
 */
class CdcRelayStarterTest {
  private static final String SLOT_PREFIX = "txmsg_cdc_boot_";

  /** Every real transport × every enabled database with a log (MariaDB, PostgreSQL). */
  static Stream<Arguments> transportsAndLogDatabases() {
    return TestTransport.realWith(
        TestDatabases.list().stream().filter(d -> d != TestDatabase.H2).toList());
  }

  private static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                TxmsgAutoConfiguration.class,
                TxmsgHealthAutoConfiguration.class,
                TxmsgCdcAutoConfiguration.class));
  }

  private static ApplicationContextRunner onH2() {
    return runner()
        .withPropertyValues(
            "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
  }

  @Test
  @DatabaseIndependent
  void noRelayRunsUnlessTheProducerWritesCdcRowsOrItIsSwitchedOn() {
    onH2().run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(TxmsgCdcRelayRuntime.class));
    onH2()
        .withPropertyValues("txmsg.producer.delivery-mode=cdc", "txmsg.cdc.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(TxmsgCdcRelayRuntime.class));
  }

  @Test
  @DatabaseIndependent
  void aRelaySwitchedOnWithoutAProducerFailsTheStartNamingTheProperty() {
    onH2()
        .withPropertyValues("txmsg.cdc.enabled=true")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              Throwable cause = rootCause(ctx.getStartupFailure());
              assertThat(cause).isInstanceOf(InvalidTxmsgPropertyException.class);
              assertThat(((InvalidTxmsgPropertyException) cause).setting())
                  .isEqualTo("txmsg.cdc.enabled");
              assertThat(cause).hasMessageContaining("no producer is configured");
            });
  }

  @Test
  @DatabaseIndependent
  void theCdcModeWithoutTxmsgCdcOnTheClassPathFailsTheStartSayingWhatToAdd() {
    onH2()
        .withClassLoader(new FilteredClassLoader(CdcRelay.class))
        .withPropertyValues("txmsg.producer.delivery-mode=cdc")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              Throwable cause = rootCause(ctx.getStartupFailure());
              assertThat(cause).isInstanceOf(InvalidTxmsgPropertyException.class);
              assertThat(cause)
                  .hasMessageContaining("io.txmsg:txmsg-cdc is not on the class path")
                  .hasMessageContaining("txmsg.cdc.enabled=false");
            });
  }

  @Test
  @DatabaseIndependent
  void theLogIsReadAsTxmsgCdcSaysElseAsSpringDatasourceSays() {
    TxmsgCdcProperties cdc = new TxmsgCdcProperties();
    StandardEnvironment env = new StandardEnvironment();
    env.getPropertySources()
        .addFirst(
            new MapPropertySource(
                "test",
                Map.of(
                    "spring.datasource.url", "jdbc:mariadb://app-db:3307/shop?useSsl=false",
                    "spring.datasource.username", "app",
                    "spring.datasource.password", "app-secret")));
    CdcSource fromSpring = TxmsgCdcAutoConfiguration.Relay.source(cdc, env, null);
    assertThat(fromSpring.host()).isEqualTo("app-db");
    assertThat(fromSpring.port()).isEqualTo(3307);
    assertThat(fromSpring.database()).isEqualTo("shop");
    assertThat(fromSpring.user()).isEqualTo("app");

    cdc.setJdbcUrl("jdbc:mariadb://replica-host/shop");
    cdc.setUsername("txmsg_relay");
    cdc.setPassword("relay-secret");
    CdcSource own = TxmsgCdcAutoConfiguration.Relay.source(cdc, env, null);
    assertThat(own.host()).isEqualTo("replica-host");
    assertThat(own.port()).isEqualTo(3306);
    assertThat(own.user()).isEqualTo("txmsg_relay");

    cdc.setJdbcUrl("jdbc:h2:mem:x");
    assertThatThrownBy(() -> TxmsgCdcAutoConfiguration.Relay.source(cdc, env, null))
        .isInstanceOf(InvalidTxmsgPropertyException.class)
        .hasMessageContaining("txmsg.cdc.jdbc-url");
  }

  /**
   * A Boot application with {@code delivery-mode=cdc} and nothing else about CDC but its slot: the
   * relay starts after the producer, the event arrives although the reconciler's fallback would
   * only send it after ten minutes, and health and Micrometer show the relay.
   */
  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("transportsAndLogDatabases")
  void aCdcProducerOfABootApplicationIsRelayedAndShownInHealthAndMetrics(
      TestTransport transport, TestDatabase kind) throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String topic = "cdc-boot-" + suffix;
    String slot = SLOT_PREFIX + suffix;
    Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
    try (DatabaseFixture db = kind.open();
        TestTransport.Open observerTransport = transport.on(mq)) {
      observerTransport.createTopic(topic, TopicType.NORMAL);
      String group = "observer-" + topic;
      try (Subscription observer =
          observerTransport
              .transport()
              .subscribe(
                  new SubscriptionSpec(group, Map.of(topic, "*"), 2),
                  m -> {
                    delivered
                        .computeIfAbsent(
                            m.properties().get(Envelope.EVENT_ID), k -> new AtomicInteger())
                        .incrementAndGet();
                    return Verdict.ACK;
                  })) {
        mq.awaitSubscribed(group, topic, Duration.ofSeconds(30));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner()
            .withBean(DataSource.class, db::dataSource)
            .withBean(SimpleMeterRegistry.class, () -> registry)
            .withPropertyValues(
                transport == TestTransport.GRPC
                    ? "txmsg.broker.endpoints=" + mq.grpcEndpoint()
                    : "txmsg.broker.name-server=" + mq.namesrvAddress(),
                "txmsg.producer.topics=" + topic,
                "txmsg.producer.store-id=cdc-boot-" + suffix,
                "txmsg.producer.delivery-mode=cdc",
                "txmsg.producer.auto-create-schema=true",
                "txmsg.producer.cdc-fallback-after=10m",
                "txmsg.cdc.slot-name=" + slot,
                "txmsg.cdc.publication-name=" + slot,
                "txmsg.cdc.heartbeat-interval=300ms",
                "txmsg.cdc.metrics-interval=200ms")
            .run(
                ctx -> {
                  assertThat(ctx).hasNotFailed();
                  TxmsgCdcRelayRuntime runtime = ctx.getBean(TxmsgCdcRelayRuntime.class);
                  assertThat(runtime.relay()).isPresent();
                  assertThat(
                          await(
                              Duration.ofSeconds(60),
                              () -> runtime.relay().get().state() == CdcRelay.State.RELAYING))
                      .as("relaying")
                      .isTrue();
                  String eventId = "evt-cdc-boot-" + suffix;
                  ctx.getBean(TxMessageTemplate.class)
                      .execute(
                          TxMessage.builder()
                              .eventId(eventId)
                              .topic(topic)
                              .eventType("Paid")
                              .aggregate("Account", "acct-" + suffix, 1)
                              .payload("{\"amount\":7}".getBytes(StandardCharsets.UTF_8))
                              .build(),
                          c -> null);
                  assertThat(await(Duration.ofSeconds(60), () -> delivered.containsKey(eventId)))
                      .as("relayed well before cdc-fallback-after (10 min)")
                      .isTrue();
                  assertThat(
                          await(
                              Duration.ofSeconds(10),
                              () ->
                                  registry.find(CdcRelayMetrics.RELAYED).counter() != null
                                      && registry.find(CdcRelayMetrics.RELAYED).counter().count()
                                          >= 1))
                      .as("txmsg.cdc.relayed counted")
                      .isTrue();
                  @SuppressWarnings("unchecked")
                  Map<String, Object> detail =
                      (Map<String, Object>)
                          ctx.getBean(TxmsgHealthIndicator.class)
                              .health()
                              .getDetails()
                              .get("cdcRelay");
                  assertThat(detail)
                      .containsEntry("state", "RUNNING")
                      .containsEntry("relay", "RELAYING")
                      .containsKey("lagRecords");
                  assertThat(delivered.get(eventId).get()).isEqualTo(1);
                });
      } finally {
        if (kind == TestDatabase.POSTGRESQL) {
          ReplicationSlots.dropTestSlotsAndPublications(db.jdbcUrl(), SLOT_PREFIX, slot);
        }
      }
    }
  }

  private static boolean await(Duration within, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(100);
    }
    return condition.getAsBoolean();
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
