package io.txmsg.producer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxResult;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.BrokerConnection;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
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
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/** The Spring wiring: the application's MyBatis mapper shares the journal's transaction. */
// Its Spring configuration is static (App.*): one method at a time.
@Execution(ExecutionMode.SAME_THREAD)
class EnableTxProducerTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String REAL = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  /** The application's own MyBatis mapper. */
  public interface PaymentMapper {
    @Insert("INSERT INTO payment (id, amount) VALUES (#{id}, #{amount})")
    int insert(@Param("id") String id, @Param("amount") int amount);

    @Select("SELECT COUNT(*) FROM payment WHERE id = #{id}")
    int count(@Param("id") String id);
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTxProducer
  static class App {
    static DataSource dataSource;
    static BrokerConnection connection;
    static String topic;

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
    TxProducerSettings txMessagingSettings() {
      return new TxProducerSettings()
          .connection(connection)
          .topics(topic)
          .storeId("spring")
          .autoCreateSchema(true);
    }

    @Bean
    SqlSessionFactory sqlSessionFactory(DataSource ds) throws Exception {
      SqlSessionFactoryBean f = new SqlSessionFactoryBean();
      f.setDataSource(ds);
      return f.getObject();
    }

    @Bean
    MapperFactoryBean<PaymentMapper> paymentMapper(SqlSessionFactory f) {
      MapperFactoryBean<PaymentMapper> m = new MapperFactoryBean<>(PaymentMapper.class);
      m.setSqlSessionFactory(f);
      return m;
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void theApplicationsMapperJoinsTheJournalTransaction(TestTransport transport, TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE payment (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL)");
      }
      App.observed.clear();
      App.dataSource = db.dataSource();
      App.connection = transport.connection(EmbeddedRocketMQ.shared());
      App.topic = "spring-" + UUID.randomUUID().toString().substring(0, 8);
      EmbeddedRocketMQ.shared().createTopic(App.topic, TopicType.TRANSACTION);
      try (AnnotationConfigApplicationContext ctx =
          new AnnotationConfigApplicationContext(App.class)) {
        TxMessageTemplate template = ctx.getBean(TxMessageTemplate.class);
        PaymentMapper payments = ctx.getBean(PaymentMapper.class);

        TxResult<Integer> ok = template.execute(message("p1"), c -> payments.insert("p1", 10));
        assertThat(ok.value()).isEqualTo(1);
        assertThat(payments.count("p1")).isEqualTo(1);

        assertThatThrownBy(
                () ->
                    template.execute(
                        message("p2"),
                        c -> {
                          payments.insert("p2", 20);
                          throw new IllegalStateException("declined");
                        }))
            .hasMessage("declined");
        assertThat(payments.count("p2")).as("the mapper's insert was rolled back with it").isZero();
        assertThat(journalRows(db, "evt-p2")).isZero();
        assertThat(journalRows(db, "evt-p1")).isEqualTo(1);
        assertThat(App.observed)
            .as("txmsg.execute on the context's ObservationRegistry, with its outcome")
            .filteredOn(o -> o.getName().equals("txmsg.execute"))
            .extracting(o -> o.getLowCardinalityKeyValue("txmsg.outcome").getValue())
            .containsExactly("committed", "rolled_back");
      }
    }
  }

  private static TxMessage message(String id) {
    return TxMessage.builder()
        .eventId("evt-" + id)
        .topic(App.topic)
        .eventType("PaymentSucceeded")
        .aggregate("Payment", id, 1)
        .payload(new byte[] {1})
        .build();
  }

  static int journalRows(DatabaseFixture db, String eventId) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        var ps = c.prepareStatement("SELECT COUNT(*) FROM txmsg_journal WHERE event_id = ?")) {
      ps.setString(1, eventId);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
