package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.spring.TxConsumersLifecycle;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Transport;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code txmsg.*} properties become the settings beans, the runtimes start on them, and settings
 * beans of the application's own replace them. The runtimes get an in-memory transport bean (the
 * plain-Spring configurations take a Transport bean when there is one), so no broker is needed
 * here; the end-to-end test runs on the embedded broker.
 */
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
  void propertiesBindToTheSettingsAndTheRuntimesStart() {
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
            "txmsg.producer.republish-after=20m",
            "txmsg.producer.publish-after=7s",
            "txmsg.producer.auto-create-schema=true",
            "txmsg.producer.reconciler-enabled=false",
            "txmsg.consumer.table-prefix=shop_",
            "txmsg.consumer.auto-create-schema=true",
            "txmsg.consumer.threads=3",
            "txmsg.consumer.dlq-drain.enabled=false",
            "txmsg.consumer.dlq-drain.retry-interval=45s",
            "txmsg.consumer.leased-delivery.lease=20s",
            "txmsg.consumer.leased-delivery.retry-max=30s",
            "txmsg.consumer.groups.points.topics=pay,refund",
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
              assertThat(p.republishAfter()).isEqualTo(Duration.ofMinutes(20));
              assertThat(p.publishAfter()).isEqualTo(Duration.ofSeconds(7));
              assertThat(p.autoCreateSchema()).isTrue();
              assertThat(p.reconcilerEnabled()).isFalse();

              TxConsumerSettings c = ctx.getBean(TxConsumerSettings.class);
              assertThat(c.connection()).isEqualTo(expected);
              assertThat(c.tablePrefix()).isEqualTo("shop_");
              assertThat(c.autoCreateSchema()).isTrue();
              assertThat(c.consumptionThreads()).isEqualTo(3);
              assertThat(c.dlqDrainEnabled()).isFalse();
              assertThat(c.dlqDrainRetryInterval()).isEqualTo(Duration.ofSeconds(45));
              assertThat(c.leasedDelivery())
                  .isEqualTo(
                      new SubscriptionSpec.Lease(
                          Duration.ofSeconds(20), Duration.ofSeconds(1), Duration.ofSeconds(30)));
              assertThat(c.groups()).containsOnlyKeys("points", "mail");
              ConsumerGroupConfig points = c.groups().get("points");
              assertThat(points.subscriptions()).containsOnlyKeys("pay", "refund");
              assertThat(points.maxAttempts()).isEqualTo(5);
              assertThat(points.consumptionThreads()).isEqualTo(2);
              assertThat(points.ignoredEventTypes()).containsExactly("Audited");

              assertThat(ctx)
                  .hasSingleBean(TxProducer.class)
                  .hasSingleBean(TxMessageTemplate.class);
              assertThat(ctx.getBean(TxConsumersLifecycle.class).isRunning()).isTrue();
            });
  }

  @Test
  void unsetPropertiesKeepTheSettingsDefaults() {
    runner
        .withPropertyValues(
            "txmsg.broker.endpoints=proxy:8081",
            "txmsg.producer.topics=pay",
            "txmsg.producer.auto-create-schema=true",
            "txmsg.consumer.auto-create-schema=true")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              TxProducerSettings defaults = new TxProducerSettings();
              TxProducerSettings p = ctx.getBean(TxProducerSettings.class);
              assertThat(p.connection()).isEqualTo(BrokerConnection.endpoints("proxy:8081"));
              assertThat(p.connection().tls()).isTrue(); // gRPC's default
              assertThat(p.storeId()).isEqualTo(defaults.storeId());
              assertThat(p.tablePrefix()).isEqualTo(defaults.tablePrefix());
              assertThat(p.deliveryMode()).isEqualTo(defaults.deliveryMode());
              assertThat(p.republishAfter()).isEqualTo(defaults.republishAfter());
              assertThat(p.reconcilerEnabled()).isTrue();
              TxConsumerSettings c = ctx.getBean(TxConsumerSettings.class);
              assertThat(c.dlqDrainEnabled()).isEqualTo(new TxConsumerSettings().dlqDrainEnabled());
              assertThat(c.groups()).isEmpty();
              assertThat(c.leasedDelivery()).as("off unless a lease is set").isNull();
            });
  }

  @Test
  void settingsBeansOfTheApplicationReplaceThePropertiesWhichAreThenNotRead() {
    runner
        .withUserConfiguration(OwnSettings.class)
        // would fail the startup if the auto-configuration still built settings from properties
        .withPropertyValues("txmsg.producer.store-id=not valid!")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).hasSingleBean(TxProducerSettings.class);
              assertThat(ctx).hasSingleBean(TxConsumerSettings.class);
              assertThat(ctx.getBean(TxProducerSettings.class))
                  .isSameAs(ctx.getBean(OwnSettings.class).producer);
              assertThat(ctx.getBean(TxConsumerSettings.class))
                  .isSameAs(ctx.getBean(OwnSettings.class).consumer);
              assertThat(ctx).hasSingleBean(TxProducer.class);
            });
  }

  @Test
  void disabledRuntimesAreNotCreated() {
    runner
        .withPropertyValues("txmsg.producer.enabled=false", "txmsg.consumer.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx)
                  .doesNotHaveBean(TxProducerSettings.class)
                  .doesNotHaveBean(TxProducer.class)
                  .doesNotHaveBean(TxConsumerSettings.class)
                  .doesNotHaveBean(TxConsumersLifecycle.class);
            });
  }

  /** The application's own settings beans (with a broker connection it built itself). */
  @Configuration(proxyBeanMethods = false)
  static class OwnSettings {
    final TxProducerSettings producer =
        new TxProducerSettings()
            .connection(BrokerConnection.endpoints("own:8081"))
            .topics("own")
            .storeId("own")
            .autoCreateSchema(true);
    final TxConsumerSettings consumer =
        new TxConsumerSettings()
            .connection(BrokerConnection.endpoints("own:8081"))
            .autoCreateSchema(true);

    @Bean
    TxProducerSettings txProducerSettings() {
      return producer;
    }

    @Bean
    TxConsumerSettings txConsumerSettings() {
      return consumer;
    }
  }
}
