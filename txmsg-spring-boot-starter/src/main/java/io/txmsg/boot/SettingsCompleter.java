package io.txmsg.boot;

import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.Transport;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Completes the application's producer or consumer settings bean, whoever defined it (the starter's
 * own, empty one, or the application's), as {@link SettingsFromProperties} describes: properties
 * where the bean holds a default, then the customizer beans, then validation and the transport
 * check. A post-processor, so that the settings bean in the context is the one the runtime runs
 * with (the health indicator and the application read the same values).
 *
 * <p>Beans it needs are looked up when a settings bean is processed, not when this post-processor
 * is created, so it initialises nothing early.
 */
final class SettingsCompleter
    implements BeanPostProcessor, BeanFactoryAware, BeanClassLoaderAware, EnvironmentAware {
  private final Class<?> type;
  private ListableBeanFactory beanFactory;
  private Environment environment;
  private ClassLoader classLoader = SettingsCompleter.class.getClassLoader();

  private SettingsCompleter(Class<?> type) {
    this.type = type;
  }

  /** Completes {@link TxProducerSettings} beans. */
  static SettingsCompleter producer() {
    return new SettingsCompleter(TxProducerSettings.class);
  }

  /** Completes {@link TxConsumerSettings} beans. */
  static SettingsCompleter consumer() {
    return new SettingsCompleter(TxConsumerSettings.class);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = (ListableBeanFactory) beanFactory;
  }

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
    if (!type.isInstance(bean)) {
      return bean;
    }
    TxmsgProperties properties = beanFactory.getBean(TxmsgProperties.class);
    BrokerConnection connection;
    if (bean instanceof TxProducerSettings s) {
      SettingsFromProperties.producer(
          properties,
          environment.getProperty(SettingsFromProperties.APPLICATION_NAME),
          s,
          beanFactory.getBeanProvider(TxProducerSettingsCustomizer.class).orderedStream().toList());
      connection = s.connection();
    } else {
      TxConsumerSettings s = (TxConsumerSettings) bean;
      SettingsFromProperties.consumer(
          properties,
          s,
          beanFactory.getBeanProvider(TxConsumerSettingsCustomizer.class).orderedStream().toList());
      connection = s.connection();
    }
    // A Transport bean of the application's (a test's in-memory broker) replaces the class path's.
    if (beanFactory.getBeanNamesForType(Transport.class, true, false).length == 0) {
      TransportCheck.check(connection, classLoader);
    }
    return bean;
  }
}
