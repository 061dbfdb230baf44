package io.txmsg.rocketmq.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.PayloadSanitizer;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.rocketmq.TxMessaging;
import io.txmsg.rocketmq.TxMessagingSettings;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/** Imported by {@link EnableTxMessaging}; thin glue over {@link TxMessaging#builder()}. */
@Configuration(proxyBeanMethods = false)
public class TxMessagingConfiguration {

  @Bean(destroyMethod = "close")
  public TxMessaging txMessaging(
      DataSource dataSource,
      PlatformTransactionManager transactionManager,
      TxMessagingSettings settings,
      ObjectProvider<CheckbackResolver> resolvers,
      ObjectProvider<PayloadSerializer> serializer,
      ObjectProvider<PayloadSanitizer> sanitizer,
      ObjectProvider<ProducerInterceptor> interceptor,
      ObjectProvider<MeterRegistry> meterRegistry) {
    TxMessaging.Builder b =
        TxMessaging.builder()
            .dataSource(dataSource)
            .settings(settings)
            .transactions(new SpringLocalTransactions(transactionManager, dataSource));
    resolvers.orderedStream().forEach(b::resolver);
    serializer.ifAvailable(b::serializer);
    sanitizer.ifAvailable(b::sanitizer);
    interceptor.ifAvailable(b::interceptor);
    meterRegistry.ifAvailable(b::meterRegistry);
    return b.build();
  }

  @Bean
  public TxMessageTemplate txMessageTemplate(TxMessaging txMessaging) {
    return txMessaging.template();
  }
}
