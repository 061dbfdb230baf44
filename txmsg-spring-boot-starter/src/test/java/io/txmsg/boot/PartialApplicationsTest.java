package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import java.time.Duration;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two services as teams split them: one only publishes, the other only consumes, each with its own
 * database and only its own properties (remoting, the embedded broker). Each starts with what it
 * configured and nothing else (the producer-only service has no consumers, the consumer-only one no
 * template and no store id), and an event of the first reaches the handler of the second.
 */
@DatabaseIndependent
// Beside the other classes: its own topic, group and databases.
@Execution(ExecutionMode.CONCURRENT)
class PartialApplicationsTest {
  private static final String TOPIC = "partial-pay";
  private static final String GROUP = "partial-points";

  /** The publishing service. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Payments {}

  /** The consuming service: one handler bean. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Points {
    @Bean
    Handler handler(JdbcTemplate jdbc) {
      return new Handler(jdbc);
    }
  }

  /** The payload. */
  public record Paid(String account, int amount) {}

  /** Credits points for each payment. */
  public static class Handler {
    private final JdbcTemplate jdbc;

    Handler(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @TxMessageHandler(topic = TOPIC, consumerGroup = GROUP, eventType = "Paid")
    public void on(Paid paid, ConsumeContext ctx) {
      jdbc.update(
          "INSERT INTO points (event_id, account, amount) VALUES (?, ?, ?)",
          ctx.eventId(),
          paid.account(),
          paid.amount());
    }
  }

  @Test
  void aProducerOnlyAndAConsumerOnlyServiceStartWithTheirOwnPropertiesAlone() throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    mq.createTopic(TOPIC, TopicType.TRANSACTION);
    mq.createConsumerGroup(GROUP, 15, Duration.ofMillis(500), Duration.ofSeconds(1));
    // A plain connection's fresh group could start past a message sent before its first rebalance.
    mq.startGroupAtFirstMessage(GROUP, TOPIC);
    try (ConfigurableApplicationContext points =
            new SpringApplicationBuilder(Points.class)
                .web(WebApplicationType.NONE)
                .properties(
                    "spring.main.banner-mode=off",
                    "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "spring.sql.init.schema-locations=classpath:boot-e2e-schema.sql",
                    "txmsg.broker.name-server=" + mq.namesrvAddress(),
                    "txmsg.consumer.auto-create-schema=true",
                    "txmsg.consumer.groups." + GROUP + ".topics=" + TOPIC)
                .run();
        ConfigurableApplicationContext payments =
            new SpringApplicationBuilder(Payments.class)
                .web(WebApplicationType.NONE)
                .properties(
                    "spring.main.banner-mode=off",
                    "spring.application.name=partial-payments", // the store id
                    "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "txmsg.broker.name-server=" + mq.namesrvAddress(),
                    "txmsg.producer.topics=" + TOPIC,
                    "txmsg.producer.auto-create-schema=true")
                .run()) {
      assertThat(points.getBeanNamesForType(TxMessageTemplate.class)).isEmpty();
      assertThat(points.getBeanNamesForType(TxmsgProducerRuntime.class)).isEmpty();
      assertThat(points.getBean(TxmsgConsumersRuntime.class).consumers()).isPresent();
      assertThat(payments.getBeanNamesForType(TxmsgConsumersRuntime.class)).isEmpty();
      assertThat(payments.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
      mq.awaitSubscribed(GROUP, TOPIC, Duration.ofSeconds(60));

      String id = EventIds.fromBusinessKey("partial", UUID.randomUUID().toString());
      payments
          .getBean(TxMessageTemplate.class)
          .execute(
              TxMessage.builder()
                  .eventId(id)
                  .topic(TOPIC)
                  .eventType("Paid")
                  .aggregate("Account", "acct-1", 1)
                  .payloadObject(new Paid("acct-1", 7))
                  .build(),
              c -> null);

      JdbcTemplate jdbc = points.getBean(JdbcTemplate.class);
      await(
          () ->
              jdbc.queryForObject(
                      "SELECT COUNT(*) FROM points WHERE event_id = ?", Integer.class, id)
                  == 1);
      assertThat(
              jdbc.queryForObject(
                  "SELECT amount FROM points WHERE event_id = ?", Integer.class, id))
          .isEqualTo(7);
    }
  }

  private static void await(BooleanSupplier check) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!check.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(50);
    }
  }
}
