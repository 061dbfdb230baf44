package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.EventIdConflictException;
import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.store.JsonPayloadSerializer;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import java.time.Duration;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Payload JSON across a change of the event class and of the mapper, in a Boot application on the
 * embedded broker (remoting) and H2:
 *
 * <ul>
 *   <li>an event written by a newer class (a field added) is applied by a handler still on the
 *       older class, whichever mapper reads it (the application's Jackson 3 JsonMapper, the
 *       default, or txmsg's Jackson 2 mapper);
 *   <li>the producer writes with txmsg's Jackson 2 mapper by default, byte for byte as before; with
 *       {@code txmsg.producer.json-mapper=application} it writes with the application's mapper,
 *       whose bytes differ, so a retry of an already committed eventId across that switch gets
 *       {@link EventIdConflictException} (the payload hash covers the bytes).
 * </ul>
 */
@DatabaseIndependent
class PayloadEvolutionTest {
  private static final String TOPIC = "evolution-pay";
  private static final String GROUP = "evolution-ledger";
  private static final String DATABASE = "jdbc:h2:mem:evolution-" + UUID.randomUUID();

  /**
   * The event as the producer's newer release writes it: {@code currency} and {@code took} were
   * added. (Jackson 2, as txmsg configures it, writes a Duration as seconds; Jackson 3 as
   * ISO-8601.)
   */
  public record PaymentCapturedV2(String orderId, int amount, String currency, Duration took) {}

  /** The event as the consumer's older release reads it. */
  public record PaymentCaptured(String orderId, int amount) {}

  /** The application: one handler on the older class. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Ledger ledger(JdbcTemplate jdbc) {
      return new Ledger(jdbc);
    }
  }

  /** Records each capture. */
  public static class Ledger {
    private final JdbcTemplate jdbc;

    Ledger(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @TxMessageHandler(topic = TOPIC, consumerGroup = GROUP, eventType = "PaymentCaptured")
    public void on(PaymentCaptured e, ConsumeContext ctx) {
      // eventVersion reaches the handler: the place to upcast an older shape (README)
      jdbc.update(
          "INSERT INTO captured (event_id, order_id, amount, event_version) VALUES (?, ?, ?, ?)",
          ctx.eventId(),
          e.orderId(),
          e.amount(),
          ctx.eventVersion());
    }
  }

  private static ConfigurableApplicationContext start(EmbeddedRocketMQ mq, String... more) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "spring.main.banner-mode=off",
            "spring.application.name=evolution",
            "spring.datasource.url=" + DATABASE + ";DB_CLOSE_DELAY=-1",
            "spring.sql.init.schema-locations=classpath:payload-schema.sql",
            "txmsg.broker.name-server=" + mq.namesrvAddress(),
            "txmsg.producer.topics=" + TOPIC,
            "txmsg.consumer.groups." + GROUP + ".topics=" + TOPIC)
        .properties(more)
        .run();
  }

  @Test
  void newerEventsAreAppliedByOlderHandlersAndTheProducersBytesChangeOnlyWhenAskedTo()
      throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    mq.createTopic(TOPIC, TopicType.TRANSACTION);
    mq.createConsumerGroup(GROUP, 15, Duration.ofMillis(500), Duration.ofSeconds(1));
    // A plain connection's fresh group could start past a message sent before its first rebalance.
    mq.startGroupAtFirstMessage(GROUP, TOPIC);
    PaymentCapturedV2 first = new PaymentCapturedV2("order-1", 10, "EUR", Duration.ofMillis(1500));
    TxMessage firstEvent = event(first);
    byte[] jackson2Bytes = new JsonPayloadSerializer().serialize(first);

    // The defaults: txmsg's Jackson 2 writes, the application's Jackson 3 JsonMapper reads.
    try (ConfigurableApplicationContext ctx = start(mq)) {
      mq.awaitSubscribed(GROUP, TOPIC, Duration.ofSeconds(60));
      ctx.getBean(TxMessageTemplate.class).execute(firstEvent, c -> null);
      JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
      assertThat(payload(jdbc, firstEvent.eventId()))
          .as("the bytes of txmsg's own mapper, as before this release")
          .isEqualTo(jackson2Bytes);
      awaitCaptured(jdbc, firstEvent.eventId(), 10);
    }

    // Writing with the application's mapper, reading with txmsg's Jackson 2.
    try (ConfigurableApplicationContext ctx =
        start(mq, "txmsg.producer.json-mapper=application", "txmsg.consumer.json-mapper=txmsg")) {
      JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
      byte[] jackson3Bytes =
          new Jackson3PayloadSerializer(ctx.getBean(JsonMapper.class)).serialize(first);
      assertThat(jackson3Bytes)
          .as("the two mappers write this payload differently")
          .isNotEqualTo(jackson2Bytes);
      TxMessageTemplate template = ctx.getBean(TxMessageTemplate.class);

      assertThatThrownBy(() -> template.execute(event(first, firstEvent.eventId()), c -> null))
          .isInstanceOf(EventIdConflictException.class)
          .hasMessageContaining(firstEvent.eventId());

      mq.awaitSubscribed(GROUP, TOPIC, Duration.ofSeconds(60));
      TxMessage second = event(new PaymentCapturedV2("order-2", 20, "USD", Duration.ofSeconds(2)));
      template.execute(second, c -> null);
      assertThat(payload(jdbc, second.eventId()))
          .isEqualTo(
              new Jackson3PayloadSerializer(ctx.getBean(JsonMapper.class))
                  .serialize(new PaymentCapturedV2("order-2", 20, "USD", Duration.ofSeconds(2))));
      awaitCaptured(jdbc, second.eventId(), 20);
    }
  }

  private static TxMessage event(PaymentCapturedV2 payload) {
    return event(
        payload, EventIds.fromBusinessKey("PaymentCaptured", UUID.randomUUID().toString()));
  }

  private static TxMessage event(PaymentCapturedV2 payload, String eventId) {
    return TxMessage.builder()
        .eventId(eventId)
        .topic(TOPIC)
        .eventType("PaymentCaptured")
        .eventVersion(2)
        .aggregate("Order", payload.orderId(), 1)
        .payloadObject(payload)
        .build();
  }

  private static byte[] payload(JdbcTemplate jdbc, String eventId) {
    return jdbc.queryForObject(
        "SELECT payload FROM txmsg_journal WHERE event_id = ?", byte[].class, eventId);
  }

  private static void awaitCaptured(JdbcTemplate jdbc, String eventId, int amount)
      throws InterruptedException {
    await(
        () ->
            jdbc.queryForObject(
                    "SELECT COUNT(*) FROM captured WHERE event_id = ?", Integer.class, eventId)
                == 1);
    assertThat(
            jdbc.queryForObject(
                "SELECT amount FROM captured WHERE event_id = ?", Integer.class, eventId))
        .isEqualTo(amount);
    assertThat(
            jdbc.queryForObject(
                "SELECT event_version FROM captured WHERE event_id = ?", Integer.class, eventId))
        .as("the producer's eventVersion")
        .isEqualTo(2);
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
