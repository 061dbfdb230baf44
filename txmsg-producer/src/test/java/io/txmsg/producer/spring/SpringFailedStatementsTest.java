package io.txmsg.producer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.ActiveTransactionException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxResult;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.transport.Transport;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.mybatis.spring.SqlSessionFactoryBean;
import org.mybatis.spring.mapper.MapperFactoryBean;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The Spring path of the failed-statement detector: a failed statement the application's MyBatis
 * mapper raised and the action swallowed fails the execute on every database; a NESTED
 * transaction's savepoint rollback recovers it. Both with the DataSource bean being the pool the
 * transaction manager runs on, and with the bean being a wrapper while the transaction manager is
 * built on the raw pool.
 */
// Its Spring configuration is static (App.*): one method at a time.
@Execution(ExecutionMode.SAME_THREAD)
class SpringFailedStatementsTest {

  @Configuration(proxyBeanMethods = false)
  @EnableTxProducer
  static class App {
    static DataSource pool;
    static boolean wrapped;

    @Bean
    DataSource dataSource() {
      return wrapped ? new TransactionAwareDataSourceProxy(pool) : pool;
    }

    @Bean
    PlatformTransactionManager transactionManager() {
      return new DataSourceTransactionManager(pool); // on the raw pool in both variants
    }

    @Bean(destroyMethod = "close")
    Transport transport() {
      return new InMemoryTransport();
    }

    @Bean
    TxProducerSettings txProducerSettings() {
      return new TxProducerSettings().topics("payment").autoCreateSchema(true);
    }

    @Bean
    SqlSessionFactory sqlSessionFactory(DataSource ds) throws Exception {
      SqlSessionFactoryBean f = new SqlSessionFactoryBean();
      f.setDataSource(ds);
      return f.getObject();
    }

    @Bean
    MapperFactoryBean<EnableTxProducerTest.PaymentMapper> paymentMapper(SqlSessionFactory f) {
      MapperFactoryBean<EnableTxProducerTest.PaymentMapper> m =
          new MapperFactoryBean<>(EnableTxProducerTest.PaymentMapper.class);
      m.setSqlSessionFactory(f);
      return m;
    }
  }

  static Stream<Arguments> variants() {
    List<Arguments> out = new ArrayList<>();
    for (TestDatabase db : TestDatabases.list()) {
      out.add(Arguments.of(db, false));
      out.add(Arguments.of(db, true));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}, DataSource bean wrapped: {1}")
  @MethodSource("variants")
  void aSwallowedMapperFailureFailsTheExecuteAndANestedSavepointRecoversIt(
      TestDatabase kind, boolean wrapped) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE payment (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL)");
      }
      App.pool = db.dataSource();
      App.wrapped = wrapped;
      try (AnnotationConfigApplicationContext ctx =
          new AnnotationConfigApplicationContext(App.class)) {
        TxMessageTemplate template = ctx.getBean(TxMessageTemplate.class);
        EnableTxProducerTest.PaymentMapper payments =
            ctx.getBean(EnableTxProducerTest.PaymentMapper.class);
        template.execute(message("p1"), c -> payments.insert("p1", 10));

        assertThatThrownBy(
                () ->
                    template.execute(
                        message("p2"),
                        c -> {
                          payments.insert("p2", 20);
                          try {
                            payments.insert("p1", 20); // duplicate key, swallowed
                          } catch (DataAccessException swallowed) {
                            // the point of the test
                          }
                          return null;
                        }))
            .isInstanceOf(TransactionRolledBackException.class);
        assertThat(payments.count("p2")).as("nothing of p2 committed").isZero();
        assertThat(EnableTxProducerTest.journalRows(db, "evt-p2")).isZero();

        TransactionTemplate nested =
            new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        TxResult<String> recovered =
            template.execute(
                message("p3"),
                c -> {
                  payments.insert("p3", 30);
                  try {
                    nested.executeWithoutResult(st -> payments.insert("p1", 30));
                  } catch (DataAccessException rolledBackToTheSavepoint) {
                    // recovered: the savepoint rollback undid the failed statement
                  }
                  return "recovered";
                });
        assertThat(recovered.value()).isEqualTo("recovered");
        // Inside the caller's own transaction: refused before any side effect.
        TransactionTemplate outer =
            new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
        assertThatThrownBy(
                () -> outer.executeWithoutResult(st -> template.execute(message("p4"), c -> null)))
            .isInstanceOf(ActiveTransactionException.class);
        assertThat(EnableTxProducerTest.journalRows(db, "evt-p4")).isZero();
        assertThat(payments.count("p3")).isEqualTo(1);
        assertThat(EnableTxProducerTest.journalRows(db, "evt-p3")).isEqualTo(1);

        // A participating (REQUIRED) transaction that failed marks the whole transaction
        // rollback-only, as Spring does, even when the action catches its exception.
        TransactionTemplate joined =
            new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
        assertThatThrownBy(
                () ->
                    template.execute(
                        message("p5"),
                        c -> {
                          payments.insert("p5", 50);
                          try {
                            joined.executeWithoutResult(
                                st -> {
                                  throw new IllegalStateException("business rule broken");
                                });
                          } catch (IllegalStateException caught) {
                            // swallowed: Spring has marked the transaction rollback-only
                          }
                          return null;
                        }))
            .isInstanceOf(TransactionRolledBackException.class)
            .hasMessageContaining("rollback-only");
        assertThat(payments.count("p5")).as("nothing of p5 committed").isZero();
        assertThat(EnableTxProducerTest.journalRows(db, "evt-p5")).isZero();
      }
    }
  }

  private static TxMessage message(String id) {
    return TxMessage.builder()
        .eventId("evt-" + id)
        .topic("payment")
        .eventType("PaymentSucceeded")
        .aggregate("Payment", id, 1)
        .payload(new byte[] {1})
        .build();
  }
}
