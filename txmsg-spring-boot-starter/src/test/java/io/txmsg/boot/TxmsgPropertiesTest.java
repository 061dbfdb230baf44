package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Transport;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * {@code txmsg.*} properties become the settings, in the documented precedence (defaults <
 * properties < customizers; a settings bean of the application's keeps the values it set), and each
 * runtime starts only when configured. The runtimes get an in-memory transport bean here, so no
 * broker is needed; the end-to-end tests run on the embedded broker.
 */
@DatabaseIndependent
class TxmsgPropertiesTest {
  private final ApplicationContextRunner runner =
      Contexts.runner().withUserConfiguration(InMemoryBroker.class);

  @Configuration(proxyBeanMethods = false)
  static class InMemoryBroker {
    @Bean(destroyMethod = "close")
    Transport transport() {
      return new InMemoryTransport();
    }
  }

  @Test
  void everyPropertyReachesItsSettingAndTheRuntimesStart() {
    runner
        .withPropertyValues(
            "txmsg.broker.name-server=ns1:9876;ns2:9876",
            "txmsg.broker.access-key=ak",
            "txmsg.broker.secret-key=sk",
            "txmsg.broker.tls=true",
            "txmsg.broker.request-timeout=5s",
            "txmsg.producer.topics=pay,refund",
            "txmsg.producer.publish-topics=audit",
            "txmsg.producer.store-id=shop-1",
            "txmsg.producer.table-prefix=shop_",
            "txmsg.producer.delivery-mode=HALF_MESSAGE",
            "txmsg.producer.confirmation=PROXY_ACK",
            "txmsg.producer.publish-after=7s",
            "txmsg.producer.max-payload-bytes=2048",
            "txmsg.producer.local-transaction-timeout=40s",
            "txmsg.producer.fence-after-checks=3",
            "txmsg.producer.fence-after=45s",
            "txmsg.producer.fence-lock-wait=600ms",
            "txmsg.producer.settle-lock-wait=3s",
            "txmsg.producer.republish-after=20m",
            "txmsg.producer.reconcile-interval=2s",
            "txmsg.producer.heartbeat-interval=4s",
            "txmsg.producer.instance-stale-after=20s",
            "txmsg.producer.reconcile-batch-size=50",
            "txmsg.producer.reconcile-concurrency=16",
            "txmsg.producer.sent-batch-size=50",
            "txmsg.producer.lease-duration=40s",
            "txmsg.producer.retry-backoff.initial=2s",
            "txmsg.producer.retry-backoff.max=10m",
            "txmsg.producer.consume-log-retention=8d",
            "txmsg.producer.confirm-batching.size=50",
            "txmsg.producer.confirm-batching.flush-interval=30ms",
            "txmsg.producer.auto-create-schema=true",
            "txmsg.producer.reconciler-enabled=false",
            "txmsg.consumer.table-prefix=shop_",
            "txmsg.consumer.auto-create-schema=true",
            "txmsg.consumer.threads=3",
            "txmsg.consumer.consume-log-retention=9d",
            "txmsg.consumer.too-old-margin=2d",
            "txmsg.consumer.command-poll-interval=700ms",
            "txmsg.consumer.command-batch-size=20",
            "txmsg.consumer.command-lease=40s",
            "txmsg.consumer.command-max-attempts=4",
            "txmsg.consumer.command-backoff.initial=3s",
            "txmsg.consumer.command-backoff.max=6m",
            "txmsg.consumer.dlq-drain.enabled=false",
            "txmsg.consumer.dlq-drain.retry-interval=45s",
            "txmsg.consumer.retry-policy-wait=4s",
            "txmsg.consumer.replay-worker.enabled=false",
            "txmsg.consumer.replay-worker.poll-interval=5s",
            "txmsg.consumer.leased-delivery.lease=20s",
            "txmsg.consumer.leased-delivery.retry-initial=2s",
            "txmsg.consumer.leased-delivery.retry-max=30s",
            "txmsg.consumer.groups.points.topics=pay,refund",
            "txmsg.consumer.groups.points.tags.refund=full || partial",
            "txmsg.consumer.groups.points.max-attempts=5",
            "txmsg.consumer.groups.points.threads=2",
            "txmsg.consumer.groups.points.ignore=Audited",
            "txmsg.consumer.groups.mail.topics=pay")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              BrokerConnection expected =
                  BrokerConnection.nameServer("ns1:9876;ns2:9876")
                      .withCredentials("ak", "sk")
                      .withTls(true)
                      .withRequestTimeout(Duration.ofSeconds(5));
              TxProducerSettings p = ctx.getBean(TxProducerSettings.class);
              assertThat(p.connection()).isEqualTo(expected);
              assertThat(p.topics()).containsExactlyInAnyOrder("pay", "refund");
              assertThat(p.publishTopics()).containsExactly("audit");
              assertThat(p.storeId()).isEqualTo("shop-1");
              assertThat(p.tablePrefix()).isEqualTo("shop_");
              assertThat(p.deliveryMode()).isEqualTo(DeliveryMode.HALF_MESSAGE);
              assertThat(p.confirmation()).isEqualTo(DeliveryConfirmation.PROXY_ACK);
              assertThat(p.publishAfter()).isEqualTo(Duration.ofSeconds(7));
              assertThat(p.maxPayloadBytes()).isEqualTo(2048);
              assertThat(p.localTransactionTimeout()).isEqualTo(Duration.ofSeconds(40));
              assertThat(p.fenceAfterChecks()).isEqualTo(3);
              assertThat(p.fenceAfter()).isEqualTo(Duration.ofSeconds(45));
              assertThat(p.fenceLockWait()).isEqualTo(Duration.ofMillis(600));
              assertThat(p.settleLockWait()).isEqualTo(Duration.ofSeconds(3));
              assertThat(p.republishAfter()).isEqualTo(Duration.ofMinutes(20));
              assertThat(p.reconcileInterval()).isEqualTo(Duration.ofSeconds(2));
              assertThat(p.heartbeatInterval()).isEqualTo(Duration.ofSeconds(4));
              assertThat(p.instanceStaleAfter()).isEqualTo(Duration.ofSeconds(20));
              assertThat(p.reconcileBatchSize()).isEqualTo(50);
              assertThat(p.reconcileConcurrency()).isEqualTo(16);
              assertThat(p.sentBatchSize()).isEqualTo(50);
              assertThat(p.leaseDuration()).isEqualTo(Duration.ofSeconds(40));
              assertThat(p.retryBackoffInitial()).isEqualTo(Duration.ofSeconds(2));
              assertThat(p.retryBackoffMax()).isEqualTo(Duration.ofMinutes(10));
              assertThat(p.consumeLogRetention()).isEqualTo(Duration.ofDays(8));
              assertThat(p.confirmBatchSize()).isEqualTo(50);
              assertThat(p.confirmFlushInterval()).isEqualTo(Duration.ofMillis(30));
              assertThat(p.autoCreateSchema()).isTrue();
              assertThat(p.reconcilerEnabled()).isFalse();

              TxConsumerSettings c = ctx.getBean(TxConsumerSettings.class);
              assertThat(c.connection()).isEqualTo(expected);
              assertThat(c.tablePrefix()).isEqualTo("shop_");
              assertThat(c.autoCreateSchema()).isTrue();
              assertThat(c.consumptionThreads()).isEqualTo(3);
              assertThat(c.consumeLogRetention()).isEqualTo(Duration.ofDays(9));
              assertThat(c.tooOldMargin()).isEqualTo(Duration.ofDays(2));
              assertThat(c.commandPollInterval()).isEqualTo(Duration.ofMillis(700));
              assertThat(c.commandBatchSize()).isEqualTo(20);
              assertThat(c.commandLease()).isEqualTo(Duration.ofSeconds(40));
              assertThat(c.commandMaxAttempts()).isEqualTo(4);
              assertThat(c.commandBackoffInitial()).isEqualTo(Duration.ofSeconds(3));
              assertThat(c.commandBackoffMax()).isEqualTo(Duration.ofMinutes(6));
              assertThat(c.dlqDrainEnabled()).isFalse();
              assertThat(c.dlqDrainRetryInterval()).isEqualTo(Duration.ofSeconds(45));
              assertThat(c.retryPolicyWait()).isEqualTo(Duration.ofSeconds(4));
              assertThat(c.replayWorkerEnabled()).isFalse();
              assertThat(c.replayPollInterval()).isEqualTo(Duration.ofSeconds(5));
              assertThat(c.leasedDelivery())
                  .isEqualTo(
                      new SubscriptionSpec.Lease(
                          Duration.ofSeconds(20), Duration.ofSeconds(2), Duration.ofSeconds(30)));
              assertThat(c.groups()).containsOnlyKeys("points", "mail");
              ConsumerGroupConfig points = c.groups().get("points");
              assertThat(points.subscriptions())
                  .isEqualTo(Map.of("pay", "*", "refund", "full || partial"));
              assertThat(points.maxAttempts()).isEqualTo(5);
              assertThat(points.consumptionThreads()).isEqualTo(2);
              assertThat(points.ignoredEventTypes()).containsExactly("Audited");

              assertThat(ctx).hasSingleBean(TxMessageTemplate.class);
              assertThat(ctx.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
              assertThat(ctx.getBean(TxmsgConsumersRuntime.class).consumers()).isPresent();
            });
  }

  @Test
  void theApplicationsSettingsBeanKeepsWhatItSetAndGetsThePropertiesForTheRest() {
    runner
        .withUserConfiguration(OwnSettings.class)
        .withPropertyValues(
            "txmsg.broker.name-server=ns:9876", // the beans set their own connection
            "txmsg.producer.topics=pay", // the bean set topics
            "txmsg.producer.republish-after=30m", // the bean set it
            "txmsg.producer.reconcile-concurrency=16", // the bean left the default: applies
            "txmsg.producer.store-id=from-properties", // the bean left the default: applies
            "txmsg.producer.auto-create-schema=true",
            "txmsg.consumer.threads=4", // the bean left the default: applies
            "txmsg.consumer.auto-create-schema=true",
            "txmsg.consumer.groups.own.topics=elsewhere", // the bean declares group "own"
            "txmsg.consumer.groups.points.topics=own")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              TxProducerSettings p = ctx.getBean(TxProducerSettings.class);
              assertThat(p).isSameAs(ctx.getBean(OwnSettings.class).producer);
              assertThat(p.connection()).isEqualTo(BrokerConnection.endpoints("own:8081"));
              assertThat(p.topics()).containsExactly("own");
              assertThat(p.republishAfter()).isEqualTo(Duration.ofMinutes(20));
              assertThat(p.reconcileConcurrency()).isEqualTo(16);
              assertThat(p.storeId()).isEqualTo("from-properties");

              TxConsumerSettings c = ctx.getBean(TxConsumerSettings.class);
              assertThat(c).isSameAs(ctx.getBean(OwnSettings.class).consumer);
              assertThat(c.connection()).isEqualTo(BrokerConnection.endpoints("own:8081"));
              assertThat(c.consumptionThreads()).isEqualTo(4);
              assertThat(c.groups()).containsOnlyKeys("own", "points");
              assertThat(c.groups().get("own").subscriptions()).containsOnlyKeys("own");
              assertThat(c.groups().get("points").subscriptions()).containsOnlyKeys("own");
              assertThat(ctx.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
            });
  }

  @Test
  void customizersRunAfterThePropertiesInTheirOrderAndWin() {
    runner
        .withUserConfiguration(Customizers.class)
        .withPropertyValues(
            "txmsg.broker.endpoints=proxy:8081",
            "txmsg.producer.topics=pay",
            "txmsg.producer.store-id=shop",
            "txmsg.producer.reconcile-concurrency=16",
            "txmsg.producer.fence-after-checks=3",
            "txmsg.producer.auto-create-schema=true",
            "txmsg.consumer.groups.points.topics=pay",
            "txmsg.consumer.threads=4",
            "txmsg.consumer.auto-create-schema=true")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              TxProducerSettings p = ctx.getBean(TxProducerSettings.class);
              // property 16, then the first customizer (x 2), then the second (+ 8)
              assertThat(p.reconcileConcurrency()).isEqualTo(40);
              assertThat(p.fenceAfterChecks()).as("a property no customizer set").isEqualTo(3);
              TxConsumerSettings c = ctx.getBean(TxConsumerSettings.class);
              assertThat(c.consumptionThreads()).isEqualTo(6);
              assertThat(c.groups()).containsOnlyKeys("points", "audit");
            });
  }

  @Test
  void withoutTopicsOrGroupsNeitherRuntimeStarts() {
    runner
        .withPropertyValues("txmsg.broker.endpoints=proxy:8081")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx)
                  .doesNotHaveBean(TxProducerSettings.class)
                  .doesNotHaveBean(TxmsgProducerRuntime.class)
                  .doesNotHaveBean(TxMessageTemplate.class)
                  .doesNotHaveBean(TxConsumerSettings.class)
                  .doesNotHaveBean(TxmsgConsumersRuntime.class);
            });
  }

  @Test
  void theEnabledSwitchesWinOverTheConfiguration() {
    runner
        .withPropertyValues(
            "txmsg.broker.endpoints=proxy:8081",
            "txmsg.producer.topics=pay",
            "txmsg.producer.enabled=false",
            "txmsg.consumer.groups.points.topics=pay",
            "txmsg.consumer.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx)
                  .doesNotHaveBean(TxmsgProducerRuntime.class)
                  .doesNotHaveBean(TxmsgConsumersRuntime.class);
            });
    // enabled=true starts the consumers without a group: they subscribe their handlers' topics
    runner
        .withPropertyValues(
            "txmsg.broker.endpoints=proxy:8081",
            "txmsg.consumer.enabled=true",
            "txmsg.consumer.auto-create-schema=true")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed().doesNotHaveBean(TxmsgProducerRuntime.class);
              assertThat(ctx.getBean(TxmsgConsumersRuntime.class).consumers()).isPresent();
            });
  }

  @Test
  void aStoreIdDefaultsToTheApplicationName() {
    runner
        .withPropertyValues(
            "spring.application.name=payments",
            "txmsg.broker.endpoints=proxy:8081",
            "txmsg.producer.topics=pay",
            "txmsg.producer.auto-create-schema=true")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              TxProducerSettings p = ctx.getBean(TxProducerSettings.class);
              assertThat(p.storeId()).isEqualTo("payments");
              assertThat(p.confirmGroup()).isEqualTo("txmsg-confirm-payments");
            });
    runner
        .withPropertyValues(
            "spring.application.name=payments",
            "txmsg.producer.store-id=payments-eu",
            "txmsg.broker.endpoints=proxy:8081",
            "txmsg.producer.topics=pay",
            "txmsg.producer.auto-create-schema=true")
        .run(
            ctx ->
                assertThat(ctx.getBean(TxProducerSettings.class).storeId())
                    .isEqualTo("payments-eu"));
  }

  /** The application's own settings beans (with a broker connection it built itself). */
  @Configuration(proxyBeanMethods = false)
  static class OwnSettings {
    final TxProducerSettings producer =
        new TxProducerSettings()
            .connection(BrokerConnection.endpoints("own:8081"))
            .topics("own")
            .republishAfter(Duration.ofMinutes(20));
    final TxConsumerSettings consumer =
        new TxConsumerSettings()
            .connection(BrokerConnection.endpoints("own:8081"))
            .group(ConsumerGroupConfig.of("own").subscribe("own"));

    @Bean
    TxProducerSettings txProducerSettings() {
      return producer;
    }

    @Bean
    TxConsumerSettings txConsumerSettings() {
      return consumer;
    }
  }

  /** Two producer customizers in order, one consumer customizer. */
  @Configuration(proxyBeanMethods = false)
  static class Customizers {
    @Bean
    @Order(2)
    TxProducerSettingsCustomizer second() {
      return s -> s.reconcileConcurrency(s.reconcileConcurrency() + 8);
    }

    @Bean
    @Order(1)
    TxProducerSettingsCustomizer first() {
      return s -> s.reconcileConcurrency(s.reconcileConcurrency() * 2);
    }

    @Bean
    TxConsumerSettingsCustomizer consumer() {
      return s ->
          s.consumptionThreads(s.consumptionThreads() + 2)
              .group(ConsumerGroupConfig.of("audit").subscribe("pay"));
    }
  }
}
