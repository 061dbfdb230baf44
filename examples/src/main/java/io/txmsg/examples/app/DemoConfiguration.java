package io.txmsg.examples.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.spring.CommandExecutorBinding;
import io.txmsg.consumer.spring.EnableTxConsumers;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.faults.ConsumerFaults;
import io.txmsg.examples.faults.FaultPlan;
import io.txmsg.examples.faults.ProducerFaults;
import io.txmsg.examples.notification.FakeSmsGateway;
import io.txmsg.examples.notification.NotificationHandler;
import io.txmsg.examples.notification.NotificationMapper;
import io.txmsg.examples.payment.CheckbackAuditMapper;
import io.txmsg.examples.payment.PaymentCheckbackResolver;
import io.txmsg.examples.payment.PaymentMapper;
import io.txmsg.examples.payment.PaymentService;
import io.txmsg.examples.points.PointsHandler;
import io.txmsg.examples.points.PointsMapper;
import io.txmsg.examples.projection.ProjectionHandler;
import io.txmsg.examples.projection.ProjectionMapper;
import io.txmsg.producer.JournalCheckbackResolver;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.producer.spring.EnableTxProducer;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.session.SqlSessionFactory;
import org.mybatis.spring.SqlSessionFactoryBean;
import org.mybatis.spring.annotation.MapperScan;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The payment application as users write theirs: plain Spring (no Boot), MyBatis mappers, the txmsg
 * producer ({@link EnableTxProducer}) and consumers ({@link EnableTxConsumers}) on ONE DataSource
 * and transaction manager, so mapper writes join the txmsg transactions.
 *
 * <p>Expects these beans from the caller: {@link DataSource} (HikariCP), {@link DemoEnvironment},
 * {@link FaultPlan}, {@link FakeSmsGateway}, {@link MeterRegistry}.
 */
@Configuration(proxyBeanMethods = false)
@EnableTxProducer
@EnableTxConsumers
@MapperScan(basePackages = "io.txmsg.examples", annotationClass = Mapper.class)
public class DemoConfiguration {

  @Bean
  PlatformTransactionManager transactionManager(DataSource dataSource) {
    return new DataSourceTransactionManager(dataSource);
  }

  @Bean
  JdbcTemplate jdbcTemplate(DataSource dataSource) {
    JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    DemoSchema.create(jdbc);
    return jdbc;
  }

  @Bean
  SqlSessionFactory sqlSessionFactory(DataSource dataSource) throws Exception {
    SqlSessionFactoryBean f = new SqlSessionFactoryBean();
    f.setDataSource(dataSource);
    return f.getObject();
  }

  // ---- producer side ----

  @Bean
  TxProducerSettings txMessagingSettings(DemoEnvironment env) {
    return new TxProducerSettings()
        .connection(env.connection())
        .topics(PaymentEvents.TOPIC)
        .storeId(PaymentEvents.STORE_ID)
        .autoCreateSchema(true)
        .deliveryMode(env.deliveryMode())
        // OUTBOX: a row whose send after commit did not happen (the crash fault) is sent by the
        // reconciler this long after its commit.
        .publishAfter(Duration.ofSeconds(3))
        // CDC: a row the relay did not send (e.g. committed before it started) is the
        // reconciler's this long after its commit.
        .cdcFallbackAfter(Duration.ofSeconds(10))
        // Above the embedded broker's whole check window (1 s interval x 15 checks + 2 s).
        .republishAfter(Duration.ofSeconds(30));
  }

  /** The application's check-back resolver; the journal resolver backs it up (fencing). */
  @Bean
  PaymentCheckbackResolver paymentCheckbackResolver(
      PaymentMapper payments,
      CheckbackAuditMapper audit,
      DataSource dataSource,
      TxProducerSettings settings) {
    return new PaymentCheckbackResolver(
        payments, audit, JournalCheckbackResolver.of(dataSource, settings));
  }

  @Bean
  ProducerFaults producerFaults(FaultPlan plan) {
    return new ProducerFaults(plan);
  }

  @Bean
  PaymentService paymentService(
      TxMessageTemplate txMessageTemplate, PaymentMapper payments, FaultPlan plan) {
    return new PaymentService(txMessageTemplate, payments, plan);
  }

  // ---- consumer side ----

  @Bean
  TxConsumerSettings txConsumerSettings(DemoEnvironment env) {
    return new TxConsumerSettings()
        .connection(env.connection())
        .autoCreateSchema(true)
        .consumptionThreads(env.consumerThreads())
        .commandPollInterval(Duration.ofMillis(100))
        .commandBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))
        .dlqDrain(true, Duration.ofSeconds(5))
        .group(
            ConsumerGroupConfig.of(PaymentEvents.POINTS)
                .subscribe(PaymentEvents.TOPIC)
                .ignore(PaymentEvents.ORDER_PAID, PaymentEvents.ORDER_REFUNDED))
        .group(
            ConsumerGroupConfig.of(PaymentEvents.NOTIFICATION)
                .subscribe(PaymentEvents.TOPIC)
                .ignore(PaymentEvents.ORDER_PAID, PaymentEvents.ORDER_REFUNDED))
        .group(
            ConsumerGroupConfig.of(PaymentEvents.SEARCH_PROJECTION).subscribe(PaymentEvents.TOPIC));
  }

  @Bean
  PointsHandler pointsHandler(PointsMapper ledger, FaultPlan plan) {
    return new PointsHandler(ledger, plan);
  }

  @Bean
  NotificationHandler notificationHandler(NotificationMapper notifications) {
    return new NotificationHandler(notifications);
  }

  @Bean
  ProjectionHandler projectionHandler(ProjectionMapper projection) {
    return new ProjectionHandler(projection);
  }

  /** SMS commands recorded by the notification handler go to the (fake) gateway. */
  @Bean
  CommandExecutorBinding smsExecutor(FakeSmsGateway gateway) {
    return new CommandExecutorBinding(NotificationHandler.SMS, gateway);
  }

  @Bean
  ConsumeMetrics consumeMetrics(MeterRegistry registry) {
    return new ConsumeMetrics(registry);
  }

  @Bean
  ConsumerFaults consumerFaults(FaultPlan plan) {
    return new ConsumerFaults(plan);
  }
}
