package io.txmsg.boot;

import io.txmsg.consumer.TxConsumerSettings;

/**
 * Changes the consumer settings after the {@code txmsg.consumer.*} and {@code txmsg.broker.*}
 * properties were applied, for what properties cannot express (a group built in code, a computed
 * value). Declare it as a bean; several run in their {@code @Order}. The settings validate after
 * the last customizer; a value a customizer sets wins over any property.
 *
 * <pre>{@code
 * @Bean
 * TxConsumerSettingsCustomizer auditGroup() {
 *   return settings -> settings.group(ConsumerGroupConfig.of("audit").subscribe("payment", "*"));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface TxConsumerSettingsCustomizer {
  /**
   * @param settings the settings the consumers will start with; change them in place
   */
  void customize(TxConsumerSettings settings);
}
