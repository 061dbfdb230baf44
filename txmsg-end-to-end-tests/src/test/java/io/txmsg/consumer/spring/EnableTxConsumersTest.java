package io.txmsg.consumer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.BrokerConnection;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mybatis.spring.SqlSessionFactoryBean;
import org.mybatis.spring.mapper.MapperFactoryBean;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The Spring wiring end to end: an event committed by the txmsg producer reaches a
 * {@code @TxMessageHandler} bean method whose MyBatis mapper joins the claim's transaction.
 */
// Its Spring configuration is static (App.*): one method at a time.
@Execution(ExecutionMode.SAME_THREAD)
class EnableTxConsumersTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String REAL = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  /** The application's MyBatis mapper. */
  public interface PointsMapper {
    @Insert("INSERT INTO points (event_id, account, amount) VALUES (#{e}, #{a}, #{n})")
    int credit(@Param("e") String eventId, @Param("a") String account, @Param("n") int amount);

    @Select("SELECT COUNT(*) FROM points WHERE event_id = #{e}")
    int count(@Param("e") String eventId);
  }

  /** The payload. */
  public record PaymentSucceeded(String account, int amount) {}

  /**
   * A handler bean as users write it. Topic and group are property placeholders, resolved from the
   * context's environment: each parameterized run gets its own, so that no run's broker-side state
   * (offsets, retries, a closing consumer) can reach the next one.
   */
  public static class Points {
    private final PointsMapper mapper;
    private final TransactionTemplate joined;

    public Points(PointsMapper mapper, PlatformTransactionManager tm) {
      this.mapper = mapper;
      this.joined = new TransactionTemplate(tm); // PROPAGATION_REQUIRED: joins the claim's
    }

    @TxMessageHandler(
        topic = "${points.topic}",
        consumerGroup = "${points.group}",
        eventType = "PaymentSucceeded")
    public void onPaid(PaymentSucceeded e, ConsumeContext ctx) {
      mapper.credit(ctx.eventId(), e.account(), e.amount());
      if (e.amount() < 0) {
        throw new PermanentConsumeException("negative amount"); // after the write: rolled back
      }
      if (e.amount() == 0) {
        try {
          joined.executeWithoutResult(
              st -> {
                throw new IllegalStateException("zero amount"); // marks the claim rollback-only
              });
        } catch (IllegalStateException swallowed) {
          // caught by the handler: the claim transaction is still rollback-only (Spring)
        }
      }
    }
  }

  /** Two handlers for the same (group, event type): a startup error. */
  public static class DuplicatePoints {
    @TxMessageHandler(
        topic = "${points.topic}",
        consumerGroup = "${points.group}",
        eventType = "PaymentSucceeded")
    public void again(PaymentSucceeded e) {}
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTxConsumers
  static class App {
    static DataSource dataSource;
    static BrokerConnection connection;
    static String topic;
    static String group;

    /** The observations of the context's registry: txmsg must pick the bean up. */
    static final List<Observation.Context> observed = new CopyOnWriteArrayList<>();

    @Bean
    ObservationRegistry observationRegistry() {
      ObservationRegistry r = ObservationRegistry.create();
      r.observationConfig()
          .observationHandler(
              new ObservationHandler<>() {
                @Override
                public boolean supportsContext(Observation.Context context) {
                  return true;
                }

                @Override
                public void onStop(Observation.Context context) {
                  observed.add(context);
                }
              });
      return r;
    }

    @Bean
    DataSource dataSource() {
      return dataSource;
    }

    @Bean
    PlatformTransactionManager transactionManager(DataSource ds) {
      return new DataSourceTransactionManager(ds);
    }

    @Bean
    TxConsumerSettings txConsumerSettings() {
      return new TxConsumerSettings()
          .connection(connection)
          .autoCreateSchema(true)
          .group(ConsumerGroupConfig.of(group).subscribe(topic));
    }

    @Bean
    SqlSessionFactory sqlSessionFactory(DataSource ds) throws Exception {
      SqlSessionFactoryBean f = new SqlSessionFactoryBean();
      f.setDataSource(ds);
      return f.getObject();
    }

    @Bean
    MapperFactoryBean<PointsMapper> pointsMapper(SqlSessionFactory f) {
      MapperFactoryBean<PointsMapper> m = new MapperFactoryBean<>(PointsMapper.class);
      m.setSqlSessionFactory(f);
      return m;
    }

    @Bean
    Points points(PointsMapper mapper, PlatformTransactionManager tm) {
      return new Points(mapper, tm);
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aHandlerBeanAppliesEachEventOnceAndItsMapperWritesRollBackWithTheClaim(
      TestTransport transport, TestDatabase kind) throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    String run = UUID.randomUUID().toString().substring(0, 8);
    App.topic = "spring-pay-" + run;
    App.group = "spring-points-" + run;
    mq.createTopic(App.topic, TopicType.TRANSACTION);
    mq.createConsumerGroup(App.group, 5, Duration.ofMillis(500), Duration.ofSeconds(1));
    // A plain connection's fresh group could start past a message sent before its first rebalance.
    mq.startGroupAtFirstMessage(App.group, App.topic);
    try (DatabaseFixture db = kind.open()) {
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE points (event_id VARCHAR(64) NOT NULL, account VARCHAR(64), amount INT)");
      }
      App.observed.clear();
      App.dataSource = db.dataSource();
      App.connection = transport.connection(mq);
      try (AnnotationConfigApplicationContext ctx = context();
          TxProducer producer =
              TxProducer.builder()
                  .dataSource(db.dataSource())
                  .settings(
                      new TxProducerSettings()
                          .connection(App.connection)
                          .topics(App.topic)
                          .storeId("spring-" + kind.id() + "-" + run)
                          .autoCreateSchema(true))
                  .build()) {
        PointsMapper mapper = ctx.getBean(PointsMapper.class);
        String ok = send(producer, "acct-1", 10);
        String negative = send(producer, "acct-2", -1);
        String zero = send(producer, "acct-3", 0);
        await(db, ok, () -> mapper.count(ok) == 1);
        await(db, negative, () -> parked(db, negative));
        // Rollback-only after a caught failure of a joined transaction: never reported applied
        // with its write gone; retried, then parked (5 broker retries, 0.5-1 s apart).
        await(db, zero, () -> parked(db, zero, "MAX_ATTEMPTS"));
        Thread.sleep(1000);
        assertThat(mapper.count(ok)).isEqualTo(1);
        assertThat(mapper.count(negative)).isZero(); // the mapper's insert rolled back
        assertThat(mapper.count(zero)).isZero();
        assertThat(ctx.getBean(TxConsumersLifecycle.class).isRunning()).isTrue();
        assertThat(App.observed)
            .as("txmsg.consume on the context's ObservationRegistry")
            .anySatisfy(
                o -> {
                  assertThat(o.getName()).isEqualTo("txmsg.consume");
                  assertThat(o.getLowCardinalityKeyValue("txmsg.group").getValue())
                      .isEqualTo(App.group);
                });
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void twoHandlersForOneGroupAndEventTypeFailTheStartup(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      App.dataSource = db.dataSource();
      App.connection = TestTransport.GRPC.connection(EmbeddedRocketMQ.shared());
      App.topic = "spring-pay";
      App.group = "spring-points";
      AnnotationConfigApplicationContext ctx = unrefreshed();
      ctx.registerBean(DuplicatePoints.class);
      assertThatThrownBy(ctx::refresh)
          .hasStackTraceContaining("two handlers for consumer group spring-points")
          .hasStackTraceContaining("DuplicatePoints.again");
      ctx.close();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aPlaceholderWithoutAValueFailsTheStartupNamingTheAttributeAndMethod(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      App.dataSource = db.dataSource();
      App.connection = TestTransport.GRPC.connection(EmbeddedRocketMQ.shared());
      App.topic = "spring-pay";
      App.group = "spring-points";
      AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
      ctx.register(App.class); // no points.* properties
      assertThatThrownBy(ctx::refresh)
          .hasStackTraceContaining(
              "@TxMessageHandler consumerGroup of points.onPaid has an unresolved placeholder:"
                  + " ${points.group}");
      ctx.close();
    }
  }

  /** The context with App's placeholders set to App.topic and App.group. */
  private static AnnotationConfigApplicationContext context() {
    AnnotationConfigApplicationContext ctx = unrefreshed();
    ctx.refresh();
    return ctx;
  }

  private static AnnotationConfigApplicationContext unrefreshed() {
    AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
    ctx.getEnvironment()
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "points", Map.of("points.topic", App.topic, "points.group", App.group)));
    ctx.register(App.class);
    return ctx;
  }

  private static String send(TxProducer producer, String account, int amount) throws Exception {
    String id = EventIds.fromBusinessKey("spring-test", UUID.randomUUID().toString());
    producer
        .template()
        .execute(
            TxMessage.builder()
                .eventId(id)
                .topic(App.topic)
                .eventType("PaymentSucceeded")
                .aggregate("Payment", account, 1)
                .payload(
                    ("{\"account\":\"" + account + "\",\"amount\":" + amount + "}")
                        .getBytes(StandardCharsets.UTF_8))
                .build(),
            c -> null);
    return id;
  }

  private static boolean parked(DatabaseFixture db, String eventId) throws Exception {
    return parked(db, eventId, "PERMANENT_ERROR");
  }

  private static boolean parked(DatabaseFixture db, String eventId, String reason)
      throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        var rs =
            s.executeQuery(
                "SELECT COUNT(*) FROM txmsg_dead_letter WHERE reason = '"
                    + reason
                    + "' AND event_id = '"
                    + eventId
                    + "'")) {
      rs.next();
      return rs.getInt(1) == 1;
    }
  }

  /**
   * Waits up to 60 s (the 30 s this used before ran out once in CI, 2026-12-04, on the parking of
   * the negative amount, with the topic and group then shared by all runs). On a timeout the
   * message names the event and what the database holds for it (its consume-log and dead-letter
   * rows), so that a slow delivery, a retry and a stuck claim can be told apart from the CI output
   * alone.
   */
  private static void await(DatabaseFixture db, String eventId, Check check) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    Exception last = null;
    while (true) {
      try {
        if (check.ok()) {
          return;
        }
      } catch (Exception e) {
        last = e; // not yet (e.g. the schema is being created)
      }
      if (System.nanoTime() > until) {
        AssertionError timedOut =
            new AssertionError(
                "timed out after 60 s waiting for event "
                    + eventId
                    + "; consume log: "
                    + rows(db, "txmsg_consume_log", eventId)
                    + "; dead letters: "
                    + rows(db, "txmsg_dead_letter", eventId));
        if (last != null) {
          timedOut.addSuppressed(last);
        }
        throw timedOut;
      }
      Thread.sleep(50);
    }
  }

  private static String rows(DatabaseFixture db, String table, String eventId) {
    try (Connection c = db.dataSource().getConnection();
        var ps = c.prepareStatement("SELECT * FROM " + table + " WHERE event_id = ?")) {
      ps.setString(1, eventId);
      try (var rs = ps.executeQuery()) {
        List<String> out = new ArrayList<>();
        var md = rs.getMetaData();
        while (rs.next()) {
          StringBuilder row = new StringBuilder("{");
          for (int i = 1; i <= md.getColumnCount(); i++) {
            Object v = rs.getObject(i);
            if (v instanceof byte[] b) {
              v = b.length + " bytes";
            }
            row.append(i > 1 ? ", " : "").append(md.getColumnLabel(i)).append('=').append(v);
          }
          out.add(row.append('}').toString());
        }
        return out.toString();
      }
    } catch (Exception e) {
      return "(not readable: " + e + ")";
    }
  }

  @FunctionalInterface
  interface Check {
    boolean ok() throws Exception;
  }
}
