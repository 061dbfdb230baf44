package io.txmsg.producer.spring;

import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.PayloadSanitizer;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.producer.ProducerMetrics;
import io.txmsg.producer.ProducerObservations;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.producer.micrometer.MicrometerProducerMetrics;
import io.txmsg.producer.micrometer.MicrometerProducerObservations;
import io.txmsg.store.spring.SpringLocalTransactions;
import io.txmsg.transport.Transport;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Imported by {@link EnableTxProducer}; thin glue over {@link TxProducer#builder()}. Metrics: a
 * {@link ProducerMetrics} bean if there is one, else the context's Micrometer {@code MeterRegistry}
 * when micrometer-core is on the classpath, else none. Observations (tracing): a {@link
 * ProducerObservations} bean if there is one, else the context's {@code ObservationRegistry} when
 * micrometer-observation is on the classpath, else none (nothing is added to any header).
 */
@Configuration(proxyBeanMethods = false)
public class TxProducerConfiguration {
  private static final boolean MICROMETER =
      ClassUtils.isPresent(
          "io.micrometer.core.instrument.MeterRegistry",
          TxProducerConfiguration.class.getClassLoader());
  private static final boolean OBSERVATION =
      ClassUtils.isPresent(
          "io.micrometer.observation.ObservationRegistry",
          TxProducerConfiguration.class.getClassLoader());

  @Bean(destroyMethod = "close")
  public TxProducer txProducer(TxProducerSettings settings, BeanFactory beanFactory) {
    return builder(settings, beanFactory).build();
  }

  @Bean
  public TxMessageTemplate txMessageTemplate(TxProducer txProducer) {
    return txProducer.template();
  }

  /**
   * The builder {@link #txProducer} builds with, not yet built: the context's DataSource and
   * transaction manager, then the optional beans ({@link Transport}, {@link CheckbackResolver}s in
   * order, {@link PayloadSerializer}, {@link PayloadSanitizer}, {@link ProducerInterceptor},
   * metrics and observations as described on this class). For integrations that decide themselves
   * when to build (the Spring Boot starter builds once the broker answers).
   */
  public static TxProducer.Builder builder(TxProducerSettings settings, BeanFactory beanFactory) {
    DataSource dataSource = beanFactory.getBean(DataSource.class);
    TxProducer.Builder b =
        TxProducer.builder()
            .dataSource(dataSource)
            .settings(settings)
            .transactions(
                new SpringLocalTransactions(
                    beanFactory.getBean(PlatformTransactionManager.class), dataSource));
    beanFactory.getBeanProvider(Transport.class).ifAvailable(b::transport);
    beanFactory.getBeanProvider(CheckbackResolver.class).orderedStream().forEach(b::resolver);
    beanFactory.getBeanProvider(PayloadSerializer.class).ifAvailable(b::serializer);
    beanFactory.getBeanProvider(PayloadSanitizer.class).ifAvailable(b::sanitizer);
    beanFactory.getBeanProvider(ProducerInterceptor.class).ifAvailable(b::interceptor);
    ProducerMetrics m = beanFactory.getBeanProvider(ProducerMetrics.class).getIfAvailable();
    if (m == null && MICROMETER) {
      m = MicrometerProducerMetrics.fromBeanFactory(beanFactory);
    }
    if (m != null) {
      b.metrics(m);
    }
    ProducerObservations o =
        beanFactory.getBeanProvider(ProducerObservations.class).getIfAvailable();
    if (o == null && OBSERVATION) {
      o = MicrometerProducerObservations.fromBeanFactory(beanFactory);
    }
    if (o != null) {
      b.observations(o);
    }
    return b;
  }
}
