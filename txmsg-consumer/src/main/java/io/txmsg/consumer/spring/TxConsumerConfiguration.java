package io.txmsg.consumer.spring;

import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.consumer.ConsumerMetrics;
import io.txmsg.consumer.ConsumerObservations;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.consumer.micrometer.MicrometerConsumerMetrics;
import io.txmsg.consumer.micrometer.MicrometerConsumerObservations;
import io.txmsg.store.spring.SpringLocalTransactions;
import io.txmsg.transport.Transport;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Imported by {@link EnableTxConsumers}; thin glue over {@link TxConsumers#builder()}. Metrics: a
 * {@link ConsumerMetrics} bean if there is one, else the context's Micrometer {@code MeterRegistry}
 * when micrometer-core is on the classpath, else none. Observations (tracing): a {@link
 * ConsumerObservations} bean if there is one, else the context's {@code ObservationRegistry} when
 * micrometer-observation is on the classpath, else none.
 */
@Configuration(proxyBeanMethods = false)
public class TxConsumerConfiguration {
  private static final boolean MICROMETER =
      ClassUtils.isPresent(
          "io.micrometer.core.instrument.MeterRegistry",
          TxConsumerConfiguration.class.getClassLoader());
  private static final boolean OBSERVATION =
      ClassUtils.isPresent(
          "io.micrometer.observation.ObservationRegistry",
          TxConsumerConfiguration.class.getClassLoader());

  @Bean
  public static TxMessageHandlerBeanPostProcessor txMessageHandlerBeanPostProcessor() {
    return new TxMessageHandlerBeanPostProcessor();
  }

  @Bean
  public TxConsumersLifecycle txConsumers(
      TxConsumerSettings settings,
      TxMessageHandlerBeanPostProcessor handlers,
      BeanFactory beanFactory) {
    return new TxConsumersLifecycle(() -> builder(settings, handlers, beanFactory));
  }

  /**
   * The builder {@link #txConsumers} starts with, not yet built: the context's DataSource and
   * transaction manager, the handlers the post-processor found, then the optional beans ({@link
   * PayloadSerializer}, {@link CommandExecutorBinding}s, {@link ConsumeListener}s, {@link
   * ConsumerInterceptor}, {@link Transport}, metrics and observations as described on this class).
   * Call it once every handler bean exists (after the context refreshed). For integrations that
   * decide themselves when to build (the Spring Boot starter starts once the broker answers).
   */
  public static TxConsumers.Builder builder(
      TxConsumerSettings settings,
      TxMessageHandlerBeanPostProcessor handlers,
      BeanFactory beanFactory) {
    DataSource dataSource = beanFactory.getBean(DataSource.class);
    TxConsumers.Builder b =
        TxConsumers.builder()
            .dataSource(dataSource)
            .settings(settings)
            .transactions(
                new SpringLocalTransactions(
                    beanFactory.getBean(PlatformTransactionManager.class), dataSource));
    handlers.handlers().forEach(b::handler);
    beanFactory.getBeanProvider(PayloadSerializer.class).ifAvailable(b::serializer);
    beanFactory
        .getBeanProvider(CommandExecutorBinding.class)
        .orderedStream()
        .forEach(e -> b.commandExecutor(e.commandType(), e.executor()));
    beanFactory.getBeanProvider(ConsumeListener.class).orderedStream().forEach(b::listener);
    beanFactory.getBeanProvider(ConsumerInterceptor.class).ifAvailable(b::interceptor);
    beanFactory.getBeanProvider(Transport.class).ifAvailable(b::transport);
    ConsumerMetrics m = beanFactory.getBeanProvider(ConsumerMetrics.class).getIfAvailable();
    if (m == null && MICROMETER) {
      m = MicrometerConsumerMetrics.fromBeanFactory(beanFactory);
    }
    if (m != null) {
      b.metrics(m);
    }
    ConsumerObservations o =
        beanFactory.getBeanProvider(ConsumerObservations.class).getIfAvailable();
    if (o == null && OBSERVATION) {
      o = MicrometerConsumerObservations.fromBeanFactory(beanFactory);
    }
    if (o != null) {
      b.observations(o);
    }
    return b;
  }
}
