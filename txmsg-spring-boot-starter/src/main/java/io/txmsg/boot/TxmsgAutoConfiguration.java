package io.txmsg.boot;

import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.spring.TxConsumerConfiguration;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.producer.spring.TxProducerConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * txmsg for Spring Boot: the settings beans from {@code txmsg.*} properties, then the plain-Spring
 * configurations that {@code @EnableTxProducer} and {@code @EnableTxConsumers} import, unchanged.
 * Those take the application's DataSource, transaction manager, MeterRegistry and
 * ObservationRegistry beans, so they run after Boot's auto-configuration of them. A settings bean
 * the application defines itself replaces the one built from properties.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"
    })
@EnableConfigurationProperties(TxmsgProperties.class)
public class TxmsgAutoConfiguration {

  /** The producer; off with {@code txmsg.producer.enabled=false}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "txmsg.producer", name = "enabled", matchIfMissing = true)
  @Import(TxProducerConfiguration.class)
  static class Producer {
    @Bean
    @ConditionalOnMissingBean
    TxProducerSettings txProducerSettings(TxmsgProperties properties) {
      return SettingsFromProperties.producer(properties);
    }
  }

  /** The consumers; off with {@code txmsg.consumer.enabled=false}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "txmsg.consumer", name = "enabled", matchIfMissing = true)
  @Import(TxConsumerConfiguration.class)
  static class Consumer {
    @Bean
    @ConditionalOnMissingBean
    TxConsumerSettings txConsumerSettings(TxmsgProperties properties) {
      return SettingsFromProperties.consumer(properties);
    }
  }
}
