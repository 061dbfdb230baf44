package io.txmsg.boot;

import io.txmsg.producer.TxProducerSettings;

/**
 * Changes the producer settings after the {@code txmsg.producer.*} and {@code txmsg.broker.*}
 * properties were applied, for what properties cannot express (a computed value, a connection built
 * in code). Declare it as a bean; several run in their {@code @Order}. The settings validate after
 * the last customizer; a value a customizer sets wins over any property.
 *
 * <pre>{@code
 * @Bean
 * TxProducerSettingsCustomizer republishAfterTheBrokersCheckWindow(BrokerLimits limits) {
 *   return settings -> settings.republishAfter(limits.checkWindow().multipliedBy(2));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface TxProducerSettingsCustomizer {
  /**
   * @param settings the settings the producer will start with; change them in place
   */
  void customize(TxProducerSettings settings);
}
