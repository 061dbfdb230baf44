package io.txmsg.boot;

import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.producer.TxProducerSettings;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * When the starter starts a runtime: only what the application configured. {@code
 * txmsg.producer.enabled} / {@code txmsg.consumer.enabled} decide when set; unset, the producer
 * starts when {@code txmsg.producer.topics} names a topic and the consumers when {@code
 * txmsg.consumer.groups} names a group, or when the application defines the settings bean itself.
 * So a consumer-only service needs no producer property, and the other way round.
 */
final class RuntimeConditions {
  private RuntimeConditions() {}

  /** The producer is configured. */
  static final class Producer extends Runtime {
    Producer() {
      super("txmsg.producer", "topics", TxProducerSettings.class, Bindable.listOf(String.class));
    }
  }

  /** The consumers are configured. */
  static final class Consumers extends Runtime {
    Consumers() {
      super(
          "txmsg.consumer",
          "groups",
          TxConsumerSettings.class,
          Bindable.mapOf(String.class, TxmsgProperties.Group.class));
    }
  }

  /**
   * The consumers are neither configured nor switched off: {@code @TxMessageHandler} methods would
   * never be called, which must not go unnoticed ({@link UnconsumedHandlerGuard}).
   */
  static final class ConsumersUnconfigured extends SpringBootCondition
      implements ConfigurationCondition {
    private final Consumers consumers = new Consumers();

    @Override
    public ConfigurationPhase getConfigurationPhase() {
      return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      Boolean enabled =
          Binder.get(context.getEnvironment())
              .bind("txmsg.consumer.enabled", Boolean.class)
              .orElse(null);
      if (enabled != null) {
        return ConditionOutcome.noMatch("txmsg.consumer.enabled=" + enabled);
      }
      ConditionOutcome configured = consumers.getMatchOutcome(context, metadata);
      return configured.isMatch()
          ? ConditionOutcome.noMatch(configured.getMessage())
          : ConditionOutcome.match(configured.getMessage());
    }
  }

  /** enabled / the property that names what to run / the application's settings bean. */
  abstract static class Runtime extends SpringBootCondition implements ConfigurationCondition {
    private final String prefix;
    private final String what;
    private final Class<?> settingsType;
    private final Bindable<?> bindable;

    Runtime(String prefix, String what, Class<?> settingsType, Bindable<?> bindable) {
      this.prefix = prefix;
      this.what = what;
      this.settingsType = settingsType;
      this.bindable = bindable;
    }

    @Override
    public ConfigurationPhase getConfigurationPhase() {
      return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      Binder binder = Binder.get(context.getEnvironment());
      Boolean enabled = binder.bind(prefix + ".enabled", Boolean.class).orElse(null);
      if (enabled != null) {
        return enabled
            ? ConditionOutcome.match(prefix + ".enabled=true")
            : ConditionOutcome.noMatch(prefix + ".enabled=false");
      }
      Object named = binder.bind(prefix + "." + what, bindable).orElse(null);
      boolean any =
          named instanceof List<?> l ? !l.isEmpty() : named instanceof Map<?, ?> m && !m.isEmpty();
      if (any) {
        return ConditionOutcome.match(prefix + "." + what + " is set");
      }
      ConfigurableListableBeanFactory beans = context.getBeanFactory();
      if (beans != null && beans.getBeanNamesForType(settingsType, true, false).length > 0) {
        return ConditionOutcome.match("the application defines a " + settingsType.getSimpleName());
      }
      return ConditionOutcome.noMatch(
          "no " + prefix + "." + what + " and no " + settingsType.getSimpleName() + " bean");
    }
  }
}
