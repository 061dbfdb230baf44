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
import org.springframework.beans.factory.ObjectProvider;
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
      DataSource dataSource,
      PlatformTransactionManager transactionManager,
      TxConsumerSettings settings,
      TxMessageHandlerBeanPostProcessor handlers,
      ObjectProvider<PayloadSerializer> serializer,
      ObjectProvider<CommandExecutorBinding> executors,
      ObjectProvider<ConsumeListener> listeners,
      ObjectProvider<ConsumerInterceptor> interceptor,
      BeanFactory beanFactory,
      ObjectProvider<Transport> transport,
      ObjectProvider<ConsumerMetrics> metrics,
      ObjectProvider<ConsumerObservations> observations) {
    return new TxConsumersLifecycle(
        () -> {
          TxConsumers.Builder b =
              TxConsumers.builder()
                  .dataSource(dataSource)
                  .settings(settings)
                  .transactions(new SpringLocalTransactions(transactionManager, dataSource));
          handlers.handlers().forEach(b::handler);
          serializer.ifAvailable(b::serializer);
          executors.orderedStream().forEach(e -> b.commandExecutor(e.commandType(), e.executor()));
          listeners.orderedStream().forEach(b::listener);
          interceptor.ifAvailable(b::interceptor);
          transport.ifAvailable(b::transport);
          ConsumerMetrics m = metrics.getIfAvailable();
          if (m == null && MICROMETER) {
            m = MicrometerConsumerMetrics.fromBeanFactory(beanFactory);
          }
          if (m != null) {
            b.metrics(m);
          }
          ConsumerObservations o = observations.getIfAvailable();
          if (o == null && OBSERVATION) {
            o = MicrometerConsumerObservations.fromBeanFactory(beanFactory);
          }
          if (o != null) {
            b.observations(o);
          }
          return b;
        });
  }
}
