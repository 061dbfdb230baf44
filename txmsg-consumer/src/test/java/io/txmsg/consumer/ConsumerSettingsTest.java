package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.InMemoryTransport;
import org.junit.jupiter.api.Test;

/** The consumer builder fails like the producer's: one exception type naming the setting. */
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
