package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.transport.SubscriptionSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The consumer builder fails like the producer's: one exception type naming the setting. */
@DatabaseIndependent
class ConsumerSettingsTest {

  @Test
  void badSettingsFailTheBuildNamingTheSetting() throws Exception {
    assertThatThrownBy(() -> new TxConsumerSettings().consumptionThreads(0))
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> assertThat(e.setting()).isEqualTo("consumptionThreads"));
    assertThatThrownBy(() -> ConsumerGroupConfig.of("points").maxAttempts(0))
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> assertThat(e.setting()).isEqualTo("groups[points].maxAttempts"));
    assertThatThrownBy(() -> TxConsumers.builder().settings(new TxConsumerSettings()).build())
        .isInstanceOfSatisfying(
            InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("dataSource"));
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      assertThatThrownBy(
              () ->
                  TxConsumers.builder()
                      .dataSource(db.dataSource())
                      .settings(new TxConsumerSettings())
                      .build())
          .isInstanceOfSatisfying(
              InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("connection"));
    }
  }

  @Test
  void aCommandBackoffMaxBelowItsInitialFailsNamingTheMax() {
    assertThatThrownBy(
            () ->
                new TxConsumerSettings()
                    .commandBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> assertThat(e.setting()).isEqualTo("commandBackoffMax"));
  }

  @Test
  void leasedDeliveryRefusesWhatTheProxyWouldNamingTheSetting() {
    assertThatThrownBy(
            () ->
                new TxConsumerSettings()
                    .leasedDelivery(
                        Duration.ofSeconds(9), Duration.ofSeconds(1), Duration.ofMinutes(1)))
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> {
              assertThat(e.setting()).isEqualTo("leasedDelivery.lease");
              assertThat(e.getMessage()).contains("at least PT10S");
            });
    assertThatThrownBy(
            () ->
                new TxConsumerSettings()
                    .leasedDelivery(
                        Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(1)))
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> assertThat(e.setting()).isEqualTo("leasedDelivery.retryMax"));
    assertThatThrownBy(
            () ->
                new TxConsumerSettings()
                    .leasedDelivery(Duration.ofSeconds(15), Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> assertThat(e.setting()).isEqualTo("leasedDelivery.retryInitial"));
    assertThat(new TxConsumerSettings().leasedDelivery()).as("off by default").isNull();
  }

  @Test
  void theLeaseRetryDelayDoublesPerAttemptUpToItsMaximum() {
    SubscriptionSpec.Lease lease =
        new TxConsumerSettings()
            .leasedDelivery(Duration.ofSeconds(15), Duration.ofMillis(500), Duration.ofSeconds(3))
            .leasedDelivery();
    assertThat(lease.retryDelay(1)).isEqualTo(Duration.ofMillis(500));
    assertThat(lease.retryDelay(2)).isEqualTo(Duration.ofSeconds(1));
    assertThat(lease.retryDelay(3)).isEqualTo(Duration.ofSeconds(2));
    assertThat(lease.retryDelay(4)).isEqualTo(Duration.ofSeconds(3));
    assertThat(lease.retryDelay(1000)).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aHandlerTopicTheGroupDoesNotSubscribeFailsNamingTheGroup() throws Exception {
    try (DatabaseFixture db = TestDatabase.H2.open();
        InMemoryTransport transport = new InMemoryTransport()) {
      TxConsumerSettings settings =
          new TxConsumerSettings()
              .autoCreateSchema(true)
              .group(ConsumerGroupConfig.of("points").subscribe("payment"));
      assertThatThrownBy(
              () ->
                  TxConsumers.builder()
                      .dataSource(db.dataSource())
                      .transport(transport)
                      .settings(settings)
                      .handler(
                          HandlerDefinition.of(
                              "points", "refund", "Refunded", String.class, (e, ctx) -> {}))
                      .build())
          .isInstanceOfSatisfying(
              InvalidSettingsException.class,
              e -> assertThat(e.setting()).isEqualTo("groups[points].subscriptions"))
          .hasMessageContaining("refund");
    }
  }
}
