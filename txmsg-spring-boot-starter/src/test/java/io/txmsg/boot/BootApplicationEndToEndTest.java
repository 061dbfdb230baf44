package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.TxMessageHandler;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.spring.EmbeddedTxmsgBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.SpringVersion;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A Boot application as a user writes it, on Spring 7: no txmsg {@code @Configuration}, only {@code
 * txmsg.*} properties and a {@code @TxMessageHandler} bean, tested as users test it:
 * {@code @SpringBootTest} with {@link EmbeddedTxmsgBroker}, which creates the topic and groups the
 * properties name and sets the broker address (the test kit is built against Spring 6.2; this runs
 * it under Boot 4 and Spring 7). On the embedded broker (gRPC) and H2, an event executed through
 * the auto-configured {@link TxMessageTemplate} reaches the handler, whose JdbcTemplate write joins
 * the claim's transaction, and is confirmed.
 */
@DatabaseIndependent
@SpringBootTest(
    classes = BootApplicationEndToEndTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.NONE,
    properties = {
      "spring.main.banner-mode=off",
      "spring.datasource.url=jdbc:h2:mem:boot-e2e;DB_CLOSE_DELAY=-1",
      "spring.sql.init.schema-locations=classpath:boot-e2e-schema.sql",
      "txmsg.broker.endpoints=127.0.0.1:8081", // replaced by the embedded proxy's
      "txmsg.broker.request-timeout=10s",
      "txmsg.producer.topics=" + BootApplicationEndToEndTest.TOPIC,
      "txmsg.producer.store-id=boot-e2e",
      "txmsg.producer.auto-create-schema=true",
      "txmsg.consumer.auto-create-schema=true",
      "txmsg.consumer.groups."
          + BootApplicationEndToEndTest.GROUP
          + ".topics="
          + BootApplicationEndToEndTest.TOPIC
    })
@EmbeddedTxmsgBroker(retryMaxTimes = 5)
class BootApplicationEndToEndTest {
  static final String TOPIC = "boot-pay";
  static final String GROUP = "boot-points";
  private static final List<String> OBSERVED = new CopyOnWriteArrayList<>();

  /** The payload. */
  public record PaymentSucceeded(String account, int amount) {}

  /** The application: auto-configuration and one handler bean. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    /** What the actuator would contribute; txmsg must use the application's registries. */
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

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
                  OBSERVED.add(context.getName());
                }
              });
      return r;
    }

    @Bean
    Points points(JdbcTemplate jdbc) {
      return new Points(jdbc);
    }
  }

  /** A handler bean as users write it. */
  public static class Points {
    private final JdbcTemplate jdbc;

    Points(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    // maxAttempts: the broker group below redelivers 5 times, 6 deliveries in all
    @TxMessageHandler(
        topic = TOPIC,
        consumerGroup = GROUP,
        eventType = "PaymentSucceeded",
        maxAttempts = 6)
    public void onPaid(PaymentSucceeded e, ConsumeContext ctx) {
      jdbc.update(
          "INSERT INTO points (event_id, account, amount) VALUES (?, ?, ?)",
          ctx.eventId(),
          e.account(),
          e.amount());
    }
  }

  @Autowired ConfigurableApplicationContext ctx;

  @Test
  void anEventExecutedInABootApplicationReachesItsHandler() throws Exception {
    // the txmsg core modules run under the Boot 4 dependency management, not the parent's
    assertThat(SpringVersion.getVersion()).startsWith("7.");
    assertThat(SpringBootVersion.getVersion()).startsWith("4.0.");

    String id = EventIds.fromBusinessKey("boot-e2e", UUID.randomUUID().toString());
    ctx.getBean(TxMessageTemplate.class)
        .execute(
            TxMessage.builder()
                .eventId(id)
                .topic(TOPIC)
                .eventType("PaymentSucceeded")
                .aggregate("Payment", "acct-1", 1)
                .payload("{\"account\":\"acct-1\",\"amount\":10}".getBytes(StandardCharsets.UTF_8))
                .build(),
            c -> null);

    JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
    await(() -> points(jdbc, id) == 1);
    assertThat(
            jdbc.queryForObject("SELECT amount FROM points WHERE event_id = ?", Integer.class, id))
        .isEqualTo(10);

    // the consumer's confirmation marks the journal row SENT: nothing pending any more
    HealthIndicator health = ctx.getBean("txmsgHealthIndicator", HealthIndicator.class);
    await(() -> Long.valueOf(0).equals(health.health().getDetails().get("pending")));
    Health h = health.health();
    assertThat(h.getStatus()).isEqualTo(Status.UP);
    assertThat(h.getDetails()).containsEntry("deadRows", 0L);

    assertThat(ctx.getBean(MeterRegistry.class).find("txmsg.send").counters()).isNotEmpty();
    assertThat(OBSERVED).contains("txmsg.execute", "txmsg.consume");
    assertThat(h.getDetails().get("producer")).asString().contains("state=RUNNING");
    assertThat(h.getDetails().get("consumers")).asString().contains("state=RUNNING");
  }

  private static int points(JdbcTemplate jdbc, String id) {
    return jdbc.queryForObject("SELECT COUNT(*) FROM points WHERE event_id = ?", Integer.class, id);
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
