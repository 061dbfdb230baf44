package io.txmsg.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.TxMessage;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.transport.BrokerConnection;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Settings are validated once, copied at build() and cannot change a running producer. */
@DatabaseIndependent
class ProducerSettingsTest {

  @Test
  void heartbeatSettingsAreValidatedNamingTheSetting() {
    TxProducerSettings ok =
        new TxProducerSettings()
            .connection(io.txmsg.transport.BrokerConnection.endpoints("127.0.0.1:1"))
            .topics("t");
    assertThat(ok.copy().heartbeatInterval()).isEqualTo(java.time.Duration.ofSeconds(5));
    assertThat(ok.copy().instanceStaleAfter()).isEqualTo(java.time.Duration.ofSeconds(30));
    ok.copy().validate();
    assertThat(ok.copy().instanceTakeoverEnabled()).isTrue();
    TxProducerSettings off = ok.copy().instanceStaleAfter(java.time.Duration.ZERO);
    off.validate();
    assertThat(off.instanceTakeoverEnabled()).isFalse();
    assertThatThrownBy(() -> ok.copy().heartbeatInterval(java.time.Duration.ZERO).validate())
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> assertThat(e.setting()).isEqualTo("heartbeatInterval"));
    assertThatThrownBy(
            () ->
                ok.copy()
                    .heartbeatInterval(java.time.Duration.ofSeconds(10))
                    .instanceStaleAfter(java.time.Duration.ofSeconds(20))
                    .validate())
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> {
              assertThat(e.setting()).isEqualTo("instanceStaleAfter");
              assertThat(e.getMessage()).contains("three heartbeatIntervals");
            });
    assertThatThrownBy(
            () -> ok.copy().instanceStaleAfter(java.time.Duration.ofSeconds(-1)).validate())
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> assertThat(e.setting()).isEqualTo("instanceStaleAfter"));
  }

  @Test
  void aMissingOrBadSettingFailsTheBuildNamingIt() throws Exception {
    try (DatabaseFixture db = TestDatabase.H2.open();
        InMemoryTransport transport = new InMemoryTransport()) {
      assertThatThrownBy(
              () ->
                  TxProducer.builder()
                      .dataSource(db.dataSource())
                      .transport(transport)
                      .settings(new TxProducerSettings())
                      .build())
          .isInstanceOfSatisfying(
              InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("topics"));
      assertThatThrownBy(
              () ->
                  TxProducer.builder()
                      .dataSource(db.dataSource())
                      .settings(new TxProducerSettings().topics("t"))
                      .build())
          .isInstanceOfSatisfying(
              InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("connection"));
      assertThatThrownBy(() -> new TxProducerSettings().tablePrefix("x; DROP TABLE y").validate())
          .isInstanceOfSatisfying(
              InvalidSettingsException.class,
              e -> assertThat(e.setting()).isEqualTo("tablePrefix"));
      assertThatThrownBy(
              () -> TxProducer.builder().settings(new TxProducerSettings().topics("t")).build())
          .isInstanceOfSatisfying(
              InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("dataSource"));
    }
  }

  @Test
  void changingTheSettingsAfterBuildDoesNotChangeTheRunningProducer() throws Exception {
    try (DatabaseFixture db = TestDatabase.H2.open();
        InMemoryTransport transport = new InMemoryTransport()) {
      TxProducerSettings settings =
          new TxProducerSettings().topics("orders").autoCreateSchema(true);
      try (TxProducer producer =
          TxProducer.builder()
              .dataSource(db.dataSource())
              .transport(transport)
              .settings(settings)
              .build()) {
        settings.topics("payments");
        TxMessage toPayments =
            TxMessage.builder()
                .eventId("e1")
                .topic("payments")
                .eventType("Paid")
                .aggregate("Payment", "p1", 1)
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        assertThatThrownBy(() -> producer.template().execute(toPayments, ctx -> null))
            .isInstanceOfSatisfying(
                InvalidTxMessageException.class, e -> assertThat(e.field()).isEqualTo("topic"));
        assertThat(transport.published()).isEmpty();
      }
    }
  }

  /**
   * BROKER_ACK is the HALF_MESSAGE default only for a remoting store whose brokers are declared
   * durable; it is refused with OUTBOX, over gRPC, and by a transport that commits oneway.
   */
  @Test
  void brokerAckIsTheDefaultOnlyForDeclaredDurableBrokersOverRemoting() throws Exception {
    BrokerConnection remoting = BrokerConnection.nameServer("127.0.0.1:9876");
    BrokerConnection grpc = BrokerConnection.endpoints("127.0.0.1:8081");
    assertThat(new TxProducerSettings().connection(remoting).confirmation())
        .isEqualTo(DeliveryConfirmation.CONSUMER);
    assertThat(new TxProducerSettings().connection(remoting).brokersDurable(true).confirmation())
        .isEqualTo(DeliveryConfirmation.BROKER_ACK);
    assertThat(new TxProducerSettings().connection(grpc).brokersDurable(true).confirmation())
        .isEqualTo(DeliveryConfirmation.CONSUMER);
    assertThat(
            new TxProducerSettings()
                .connection(remoting)
                .brokersDurable(true)
                .deliveryMode(DeliveryMode.OUTBOX)
                .confirmation())
        .isEqualTo(DeliveryConfirmation.SEND_OK);
    assertThatThrownBy(
            () ->
                new TxProducerSettings()
                    .connection(grpc)
                    .topics("t")
                    .confirmation(DeliveryConfirmation.BROKER_ACK)
                    .validate())
        .isInstanceOfSatisfying(
            InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("confirmation"));
    assertThatThrownBy(
            () ->
                new TxProducerSettings()
                    .connection(remoting)
                    .topics("t")
                    .deliveryMode(DeliveryMode.OUTBOX)
                    .confirmation(DeliveryConfirmation.BROKER_ACK)
                    .validate())
        .isInstanceOfSatisfying(
            InvalidSettingsException.class, e -> assertThat(e.setting()).isEqualTo("confirmation"));
    // A transport given directly that cannot read the commit's answer (the in-memory one, like
    // gRPC) is refused at build, before anything is sent.
    try (DatabaseFixture db = TestDatabase.H2.open();
        InMemoryTransport transport = new InMemoryTransport()) {
      assertThatThrownBy(
              () ->
                  TxProducer.builder()
                      .dataSource(db.dataSource())
                      .transport(transport)
                      .settings(
                          new TxProducerSettings()
                              .topics("t")
                              .autoCreateSchema(true)
                              .confirmation(DeliveryConfirmation.BROKER_ACK))
                      .build())
          .isInstanceOfSatisfying(
              InvalidSettingsException.class,
              e -> assertThat(e.setting()).isEqualTo("confirmation"))
          .hasMessageContaining("BROKER_ACK");
      assertThat(transport.published()).isEmpty();
    }
  }
}
