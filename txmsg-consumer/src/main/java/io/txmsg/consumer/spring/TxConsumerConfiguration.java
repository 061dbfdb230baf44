package io.txmsg.consumer.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.rocketmq.spring.SpringLocalTransactions;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/** Imported by {@link EnableTxConsumers}; thin glue over {@link TxConsumers#builder()}. */
@Configuration(proxyBeanMethods = false)
public class TxConsumerConfiguration {

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
      ObjectProvider<MeterRegistry> meterRegistry) {
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
          meterRegistry.ifAvailable(b::meterRegistry);
          return b;
        });
  }
}
