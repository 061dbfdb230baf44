package io.txmsg.boot;

import io.txmsg.api.TxMessageTemplate;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.consumer.spring.TxConsumerConfiguration;
import io.txmsg.consumer.spring.TxMessageHandlerBeanPostProcessor;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.producer.spring.TxProducerConfiguration;
import java.util.LinkedHashSet;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * txmsg for Spring Boot: the producer and the consumers over the application's DataSource,
 * transaction manager, MeterRegistry and ObservationRegistry, each started only when configured
 * ({@link RuntimeConditions}).
 *
 * <ul>
 *   <li>Settings: a {@code TxProducerSettings} / {@code TxConsumerSettings} bean (the
 *       application's, or an empty one of the starter's) completed from {@code txmsg.*} properties
 *       and the customizer beans ({@link SettingsFromProperties} states the precedence).
 *   <li>Runtimes: {@link TxmsgProducerRuntime} (whose template is the {@link TxMessageTemplate}
 *       bean) and {@link TxmsgConsumersRuntime}, built with the same builders as {@code
 *       EnableTxProducer} / {@code EnableTxConsumers}; they start while the broker is unreachable
 *       unless {@code txmsg.broker.fail-fast=true}.
 *   <li>Schema: with Flyway on the class path, txmsg's own Flyway migrations run first ({@code
 *       txmsg.flyway.enabled=false} turns them off); otherwise, with Liquibase on the class path,
 *       txmsg's Liquibase changelog ({@code txmsg.liquibase.enabled=false} turns it off). Both run
 *       the same schema files; never both.
 * </ul>
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
      "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
      "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"
    })
@EnableConfigurationProperties(TxmsgProperties.class)
public class TxmsgAutoConfiguration {

  /** The producer, when configured. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(RuntimeConditions.Producer.class)
  static class Producer {
    @Bean
    static SettingsCompleter txmsgProducerSettingsCompleter() {
      return SettingsCompleter.producer();
    }

    @Bean
    @ConditionalOnMissingBean
    TxProducerSettings txProducerSettings() {
      return new TxProducerSettings(); // completed by the SettingsCompleter
    }

    @Bean
    TxmsgProducerRuntime txmsgProducerRuntime(
        TxProducerSettings settings,
        TxmsgProperties properties,
        BeanFactory beanFactory,
        Environment environment,
        ObjectProvider<TxmsgFlywayMigration> migration,
        ObjectProvider<TxmsgLiquibaseMigration> changelog) {
      migration.getIfAvailable(); // the schema first: txmsg's Flyway migrations, if any
      changelog.getIfAvailable(); // or its Liquibase changelog
      // Before anything runs: a defaulted store id must not strand the rows of the old default.
      StoreIdCheck.check(
          beanFactory.getBean(DataSource.class),
          settings,
          properties,
          environment.getProperty(SettingsFromProperties.APPLICATION_NAME));
      TxmsgBrokerProperties broker = properties.getBroker();
      return new TxmsgProducerRuntime(
          () -> {
            TxProducer.Builder b = TxProducerConfiguration.builder(settings, beanFactory);
            var serializer =
                PayloadSerializers.writer(properties.getProducer().getJsonMapper(), beanFactory);
            if (serializer != null) {
              b.serializer(serializer);
            }
            return b.build();
          },
          broker.isFailFast(),
          broker.getConnectRetryInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    TxMessageTemplate txMessageTemplate(TxmsgProducerRuntime runtime) {
      return runtime.template();
    }
  }

  /** The consumers, when configured. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(RuntimeConditions.Consumers.class)
  static class Consumers {
    @Bean
    static SettingsCompleter txmsgConsumerSettingsCompleter() {
      return SettingsCompleter.consumer();
    }

    @Bean
    static TxMessageHandlerBeanPostProcessor txMessageHandlerBeanPostProcessor() {
      return new TxMessageHandlerBeanPostProcessor();
    }

    @Bean
    @ConditionalOnMissingBean
    TxConsumerSettings txConsumerSettings() {
      return new TxConsumerSettings(); // completed by the SettingsCompleter
    }

    @Bean
    TxmsgConsumersRuntime txmsgConsumersRuntime(
        TxConsumerSettings settings,
        TxMessageHandlerBeanPostProcessor handlers,
        TxmsgProperties properties,
        BeanFactory beanFactory,
        ObjectProvider<TxmsgFlywayMigration> migration,
        ObjectProvider<TxmsgLiquibaseMigration> changelog) {
      migration.getIfAvailable(); // the schema first: txmsg's Flyway migrations, if any
      changelog.getIfAvailable(); // or its Liquibase changelog
      TxmsgBrokerProperties broker = properties.getBroker();
      return new TxmsgConsumersRuntime(
          () -> {
            TxConsumers.Builder b =
                TxConsumerConfiguration.builder(settings, handlers, beanFactory);
            var serializer =
                PayloadSerializers.reader(properties.getConsumer().getJsonMapper(), beanFactory);
            if (serializer != null) {
              b.serializer(serializer);
            }
            return b.build();
          },
          broker.isFailFast(),
          broker.getConnectRetryInterval());
    }
  }

  /** Handlers without configured consumers fail the start instead of never being called. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(RuntimeConditions.ConsumersUnconfigured.class)
  static class NoConsumers {
    @Bean
    static UnconsumedHandlerGuard txmsgUnconsumedHandlerGuard() {
      return new UnconsumedHandlerGuard();
    }
  }

  /** txmsg's own Flyway migrations, before the runtimes. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.flywaydb.core.Flyway")
  @ConditionalOnBean(DataSource.class)
  @ConditionalOnBooleanProperty(name = "txmsg.flyway.enabled", matchIfMissing = true)
  static class Flyway {
    @Bean
    TxmsgFlywayMigration txmsgFlywayMigration(
        DataSource dataSource,
        ObjectProvider<TxProducerSettings> producer,
        ObjectProvider<TxConsumerSettings> consumer) {
      Set<String> prefixes = new LinkedHashSet<>();
      producer.ifAvailable(p -> prefixes.add(p.tablePrefix()));
      consumer.ifAvailable(c -> prefixes.add(c.tablePrefix()));
      return new TxmsgFlywayMigration(dataSource, prefixes);
    }
  }

  /**
   * txmsg's own Liquibase changelog, before the runtimes: when txmsg's Flyway migrations do not run
   * (one schema tool per set of tables: the second would find the tables the first created).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "liquibase.Liquibase")
  @ConditionalOnBean(DataSource.class)
  @ConditionalOnBooleanProperty(name = "txmsg.liquibase.enabled", matchIfMissing = true)
  @Conditional(TxmsgFlywayOff.class)
  static class Liquibase {
    @Bean
    TxmsgLiquibaseMigration txmsgLiquibaseMigration(
        DataSource dataSource,
        ObjectProvider<TxProducerSettings> producer,
        ObjectProvider<TxConsumerSettings> consumer) {
      Set<String> prefixes = new LinkedHashSet<>();
      producer.ifAvailable(p -> prefixes.add(p.tablePrefix()));
      consumer.ifAvailable(c -> prefixes.add(c.tablePrefix()));
      return new TxmsgLiquibaseMigration(dataSource, prefixes);
    }
  }

  /** txmsg's Flyway migrations do not run: Flyway is absent, or turned off for txmsg. */
  static class TxmsgFlywayOff extends AnyNestedCondition {
    TxmsgFlywayOff() {
      super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnMissingClass("org.flywaydb.core.Flyway")
    static class NoFlyway {}

    @ConditionalOnBooleanProperty(name = "txmsg.flyway.enabled", havingValue = false)
    static class FlywayOff {}
  }
}
