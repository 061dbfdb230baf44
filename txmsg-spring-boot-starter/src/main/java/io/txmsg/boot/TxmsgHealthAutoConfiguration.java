package io.txmsg.boot;

import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.transport.BrokerConnection;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code txmsg} health indicator, when Boot's health API (spring-boot-health, part of the
 * actuator) is on the classpath; {@code management.health.txmsg.enabled=false} turns it off.
 */
@AutoConfiguration(after = TxmsgAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(DataSource.class)
@ConditionalOnEnabledHealthIndicator("txmsg")
public class TxmsgHealthAutoConfiguration {
  private static final String DEFAULT_PREFIX = "txmsg_";

  // The bean name gives the indicator its name: "txmsg".
  @Bean
  @ConditionalOnMissingBean(name = "txmsgHealthIndicator")
  TxmsgHealthIndicator txmsgHealthIndicator(
      DataSource dataSource,
      TxmsgProperties properties,
      ObjectProvider<TxProducerSettings> producer,
      ObjectProvider<TxConsumerSettings> consumer,
      ObjectProvider<TxmsgRuntime> runtimes) {
    TxProducerSettings p = producer.getIfAvailable();
    TxConsumerSettings c = consumer.getIfAvailable();
    String prefix = p != null ? p.tablePrefix() : c != null ? c.tablePrefix() : DEFAULT_PREFIX;
    BrokerConnection broker = p != null ? p.connection() : c != null ? c.connection() : null;
    return new TxmsgHealthIndicator(
        dataSource, prefix, properties.getHealth(), broker, runtimes.orderedStream().toList());
  }
}
