package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.EventIds;
import io.txmsg.api.TransportException;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A Boot application whose broker is down when it starts: the context starts; {@code execute}
 * throws {@link TransportException} at once, before any side effect (the action does not run),
 * while the producer has not started; the health indicator says so and stays UP; once the broker is
 * up the producer and the consumers start by themselves and an event goes through. With {@code
 * txmsg.broker.fail-fast=true} the start fails instead, as before. Both transports, on a cluster of
 * its own (stopped and started again on the same ports and store).
 */
@DatabaseIndependent
// Beside the other classes (a cluster of its own); its methods stop and start that cluster, so
// they run one after another.
@Execution(ExecutionMode.CONCURRENT)
class BrokerDownAtStartTest {
  private static final String TOPIC = "down-pay";
  private static final String GROUP = "down-points";
  private static final Duration WAIT = Duration.ofSeconds(150);
  private static EmbeddedRocketMQ mq;

  @BeforeAll
  static void clusterWithTheTopicThenStopped() {
    mq = EmbeddedRocketMQ.builder().start();
    mq.createTopic(TOPIC, TopicType.TRANSACTION);
    mq.createConsumerGroup(GROUP, 15, Duration.ofMillis(500), Duration.ofSeconds(1));
    // A plain connection's fresh group could start past a message sent before its first rebalance.
    mq.startGroupAtFirstMessage(GROUP, TOPIC);
  }

  @AfterAll
  static void close() {
    mq.close();
  }

  /** The application: a handler bean. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
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

  private static SpringApplicationBuilder app(String protocol, String... more) {
    String address =
        protocol.equals("remoting")
            ? "txmsg.broker.name-server=" + mq.namesrvAddress()
            : "txmsg.broker.endpoints=" + mq.grpcEndpoint();
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.main.banner-mode=off",
            "spring.application.name=down-" + protocol,
            "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
            "spring.sql.init.schema-locations=classpath:boot-e2e-schema.sql",
            address,
            "txmsg.broker.request-timeout=2s",
            "txmsg.broker.connect-retry-interval=1s",
            "txmsg.producer.topics=" + TOPIC,
            "txmsg.producer.auto-create-schema=true",
            "txmsg.consumer.auto-create-schema=true",
            "txmsg.consumer.groups." + GROUP + ".topics=" + TOPIC)
        .properties(more);
  }

  @SuppressWarnings("unchecked") // the health details' maps
  @ParameterizedTest
  @Execution(ExecutionMode.SAME_THREAD)
  @ValueSource(strings = {"remoting", "grpc"})
  void theApplicationStartsWhileTheBrokerIsDownAndPublishesOnceItIsUp(String protocol)
      throws Exception {
    mq.stop();
    try (ConfigurableApplicationContext ctx = app(protocol).run()) {
      TxmsgProducerRuntime producer = ctx.getBean(TxmsgProducerRuntime.class);
      assertThat(producer.status().state()).isEqualTo(TxmsgRuntimeStatus.State.RETRYING);

      AtomicBoolean actionRan = new AtomicBoolean();
      TxMessageTemplate template = ctx.getBean(TxMessageTemplate.class);
      assertThatThrownBy(() -> template.execute(paid(), c -> actionRan.getAndSet(true)))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("the txmsg producer has not started (RETRYING since")
          .hasMessageContaining("nothing was sent or committed, the action did not run");
      assertThat(actionRan).isFalse();
      JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
      assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM txmsg_journal", Integer.class)).isZero();

      HealthIndicator health = ctx.getBean("txmsgHealthIndicator", HealthIndicator.class);
      Health down = health.health();
      assertThat(down.getStatus()).as("a broker outage is not DOWN").isEqualTo(Status.UP);
      assertThat((Map<String, Object>) down.getDetails().get("producer"))
          .containsEntry("state", "RETRYING")
          .containsKey("lastFailure");

      mq.start();

      TxMessage event = null;
      long until = System.nanoTime() + WAIT.toNanos();
      while (event == null) {
        TxMessage attempt = paid();
        try {
          template.execute(attempt, c -> null);
          event = attempt;
        } catch (TransportException notYet) {
          if (System.nanoTime() > until) {
            throw new AssertionError("the producer did not start after the broker", notYet);
          }
          Thread.sleep(200);
        }
      }
      String id = event.eventId();
      await(
          () ->
              jdbc.queryForObject(
                      "SELECT COUNT(*) FROM points WHERE event_id = ?", Integer.class, id)
                  == 1);
      Health up = health.health();
      assertThat((Map<String, Object>) up.getDetails().get("producer"))
          .containsEntry("state", "RUNNING");
      assertThat((Map<String, Object>) up.getDetails().get("consumers"))
          .containsEntry("state", "RUNNING");
    }
  }

  @ParameterizedTest
  @Execution(ExecutionMode.SAME_THREAD)
  @ValueSource(strings = {"remoting", "grpc"})
  void failFastFailsTheStartWhileTheBrokerIsDown(String protocol) {
    mq.stop();
    assertThatThrownBy(() -> app(protocol, "txmsg.broker.fail-fast=true").run().close())
        .satisfies(
            e -> {
              Throwable t = e;
              while (t != null && !(t instanceof TransportException)) {
                t = t.getCause();
              }
              assertThat(t).as("a TransportException in " + e).isNotNull();
            });
  }

  private static TxMessage paid() {
    return TxMessage.builder()
        .eventId(EventIds.fromBusinessKey("down", UUID.randomUUID().toString()))
        .topic(TOPIC)
        .eventType("Paid")
        .aggregate("Account", "acct-1", 1)
        .payloadObject(new Paid("acct-1", 3))
        .build();
  }

  private static void await(BooleanSupplier check) throws InterruptedException {
    long until = System.nanoTime() + WAIT.toNanos();
    while (!check.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("timed out after " + WAIT);
      }
      Thread.sleep(100);
    }
  }
}
