package io.txmsg.boot.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.spring.EnableTxConsumers;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.BrokerConnection;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The consumer side with JPA: a {@code @TxMessageHandler} that writes through a Spring Data JPA
 * repository, its claim run by JpaTransactionManager, so the repository's insert and txmsg's
 * consume-log row commit or roll back together. Under redelivery (a failed first attempt, then a
 * byte-identical republish of the same event) the event is applied exactly once.
 */
class JpaHandlerTest {

  /** The handler as users write it. */
  public static class Applier {
    private final JpaAppliedRepository applied;

    public Applier(JpaAppliedRepository applied) {
      this.applied = applied;
    }

    @TxMessageHandler(
        topic = "${jpa.topic}",
        consumerGroup = "${jpa.group}",
        eventType = "PaymentSucceeded")
    public void onPaid(Map<String, Object> payload, ConsumeContext ctx) {
      applied.saveAndFlush(new JpaApplied(UUID.randomUUID().toString(), ctx.eventId()));
      if (ctx.deliveryAttempt() == 1) {
        // After the write: the broker redelivers, and the repository's insert rolled back.
        throw new IllegalStateException("transient failure of the first attempt");
      }
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTxConsumers
  @EnableJpaRepositories(basePackageClasses = JpaAppliedRepository.class)
  static class App {
    static DataSource dataSource;
    static BrokerConnection connection;
    static String topic;
    static String group;
    static final List<String> outcomes = new CopyOnWriteArrayList<>();

    /** Every delivery's outcome, "eventId OUTCOME". */
    @Bean
    ConsumeListener outcomes() {
      return (g, type, eventId, outcome) -> outcomes.add(eventId + " " + outcome);
    }

    @Bean
    DataSource dataSource() {
      return dataSource;
    }

    @Bean
    LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource ds) {
      LocalContainerEntityManagerFactoryBean f = new LocalContainerEntityManagerFactoryBean();
      f.setDataSource(ds);
      f.setPackagesToScan(JpaApplied.class.getPackageName());
      f.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
      Properties jpa = new Properties();
      jpa.put("hibernate.hbm2ddl.auto", "create");
      f.setJpaProperties(jpa);
      return f;
    }

    @Bean
    PlatformTransactionManager transactionManager(jakarta.persistence.EntityManagerFactory emf) {
      return new JpaTransactionManager(emf);
    }

    @Bean
    TxConsumerSettings txConsumerSettings() {
      return new TxConsumerSettings()
          .connection(connection)
          .autoCreateSchema(true)
          .group(ConsumerGroupConfig.of(group).subscribe(topic));
    }

    @Bean
    Applier applier(JpaAppliedRepository repository) {
      return new Applier(repository);
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("io.txmsg.testkit.transport.TestTransport#realWithDatabases")
  void aJpaRepositoryHandlerAppliesAnEventOnceUnderRedelivery(
      TestTransport transport, TestDatabase kind) throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    String run = UUID.randomUUID().toString().substring(0, 8);
    App.topic = "jpa-pay-" + run;
    App.group = "jpa-applier-" + run;
    mq.createTopic(App.topic, TopicType.TRANSACTION);
    mq.createConsumerGroup(App.group, 5, Duration.ofMillis(500), Duration.ofSeconds(1));
    // A plain connection's fresh group could start past a message sent before its first rebalance.
    mq.startGroupAtFirstMessage(App.group, App.topic);
    try (DatabaseFixture db = kind.open()) {
      App.dataSource = db.dataSource();
      App.connection = transport.connection(mq);
      AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
      ctx.getEnvironment()
          .getPropertySources()
          .addFirst(
              new MapPropertySource("jpa", Map.of("jpa.topic", App.topic, "jpa.group", App.group)));
      ctx.register(App.class);
      ctx.refresh();
      try (ctx;
          TxProducer producer =
              TxProducer.builder()
                  .dataSource(db.dataSource())
                  .settings(
                      new TxProducerSettings()
                          .connection(App.connection)
                          .topics(App.topic)
                          .storeId("jpa-" + kind.id() + "-" + run)
                          // The test republishes by hand below: a scheduled round (every 1 s)
                          // could take the row first and leave the hand-run drain nothing.
                          .reconcilerEnabled(false)
                          .autoCreateSchema(true))
                  .build()) {
        JpaAppliedRepository applied = ctx.getBean(JpaAppliedRepository.class);
        String eventId = EventIds.fromBusinessKey("jpa-test", run);
        producer
            .template()
            .execute(
                TxMessage.builder()
                    .eventId(eventId)
                    .topic(App.topic)
                    .eventType("PaymentSucceeded")
                    .aggregate("Payment", run, 1)
                    .payload("{\"amount\":10}".getBytes(StandardCharsets.UTF_8))
                    .build(),
                c -> null);
        // Attempt 1 wrote and failed (rolled back), attempt 2 applied.
        await(() -> applied.countByEventId(eventId) == 1);

        // The confirm group records the delivery SENT; wait for it, or it could mark the row SENT
        // again after the UPDATE below (it accepts RETRY rows) and leave the drain nothing.
        Journal journal =
            new Journal(db.dataSource(), TxmsgStore.detect(db.dataSource(), "txmsg_"));
        await(
            () -> {
              try {
                return journal.find(eventId).getStatus() == JournalStatus.SENT;
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
        // The same event again, byte-identical, as the reconciler republishes it.
        try (Connection c = db.dataSource().getConnection();
            PreparedStatement ps =
                c.prepareStatement(
                    "UPDATE txmsg_journal SET status = 'RETRY', next_retry_at = created_at"
                        + " WHERE event_id = ?")) {
          ps.setString(1, eventId);
          assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        assertThat(producer.reconciler().drain().republished()).isEqualTo(1);
        // The republished copy arrived and was recognised as a duplicate, not run again.
        await(() -> App.outcomes.contains(eventId + " DUPLICATE"));
        assertThat(App.outcomes)
            .filteredOn(o -> o.startsWith(eventId + " "))
            .contains(eventId + " RETRY", eventId + " APPLIED")
            .filteredOn(o -> o.endsWith(" APPLIED"))
            .hasSize(1);
        assertThat(applied.countByEventId(eventId)).as("applied once").isEqualTo(1);
      }
    }
  }

  private static void await(BooleanSupplier check) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!check.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(100);
    }
  }
}
