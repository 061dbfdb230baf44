package io.txmsg.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.api.Envelope;
import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxResult;
import io.txmsg.rocketmq.TxMessaging;
import io.txmsg.rocketmq.TxMessagingSettings;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;

/**
 * The first thing to run: starts an embedded RocketMQ 5 cluster and an H2 database, commits one
 * payment and its PaymentSucceeded event in one local transaction, receives the event, and prints
 * what the journal says. (The full payment scenario with faults replaces this later.)
 */
public final class PaymentDemo {
  private PaymentDemo() {}

  public static void main(String[] args) throws Exception {
    int exit = run();
    System.exit(exit);
  }

  /** Runs the demo; returns 0 when the event was delivered and the journal row confirmed. */
  public static int run() throws Exception {
    long t0 = System.nanoTime();
    System.out.println("[1/5] starting embedded RocketMQ 5 (NameServer + Broker + gRPC proxy)...");
    try (EmbeddedRocketMQ mq = EmbeddedRocketMQ.builder().start();
        HikariDataSource db = h2()) {
      System.out.printf("      ready in %d ms at %s%n", ms(t0), mq.grpcEndpoint());
      mq.createTopic("payment", TopicType.TRANSACTION);
      try (Connection c = db.getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE payment (order_id VARCHAR(64) PRIMARY KEY, amount_cents BIGINT)");
      }

      System.out.println(
          "[2/5] starting the txmsg producer (journal on H2, check-back resolver)...");
      TxMessagingSettings settings =
          new TxMessagingSettings()
              .endpoints(mq.grpcEndpoint())
              .topics("payment")
              .storeId("payments")
              .autoCreateSchema(true)
              .republishAfter(Duration.ofSeconds(30));
      CountDownLatch received = new CountDownLatch(1);
      AtomicReference<String> got = new AtomicReference<>();
      try (TxMessaging txmsg = TxMessaging.builder().dataSource(db).settings(settings).build();
          PushConsumer points = consumer(mq, received, got)) {
        String orderId = "order-1001";
        TxMessage event =
            TxMessage.builder()
                .eventId(EventIds.fromBusinessKey("PaymentSucceeded", orderId))
                .topic("payment")
                .eventType("PaymentSucceeded")
                .aggregate("Order", orderId, 2)
                .businessKey(orderId)
                .payloadObject(Map.of("orderId", orderId, "amountCents", 4200))
                .build();

        System.out.println("[3/5] committing payment + journal row, then the half message...");
        TxResult<Integer> result =
            txmsg
                .template()
                .execute(
                    event,
                    ctx -> {
                      try (PreparedStatement ps =
                          ctx.connection()
                              .prepareStatement(
                                  "INSERT INTO payment (order_id, amount_cents) VALUES (?, ?)")) {
                        ps.setString(1, orderId);
                        ps.setLong(2, 4200);
                        return ps.executeUpdate();
                      }
                    });
        System.out.printf(
            "      %s eventId=%s attempt=%s%n",
            result.outcome(), result.eventId(), result.attemptId());

        System.out.println("[4/5] retrying the same command (idempotent)...");
        TxResult<Integer> retry = txmsg.template().execute(event, ctx -> 1);
        System.out.printf("      %s (the action did not run again)%n", retry.outcome());

        System.out.println("[5/5] waiting for delivery and confirmation...");
        boolean delivered = received.await(30, TimeUnit.SECONDS);
        String status = waitForStatus(db, event.eventId(), "SENT", Duration.ofSeconds(30));
        System.out.println();
        System.out.println("RESULT");
        System.out.printf(
            "  delivered to consumer : %s (%s)%n", delivered ? "yes" : "NO", got.get());
        System.out.printf("  journal status        : %s%n", status);
        System.out.printf(
            "  idempotent retry      : %s%n", retry.alreadyCommitted() ? "PASS" : "FAIL");
        System.out.printf("  total time            : %d ms%n", ms(t0));
        boolean ok = delivered && "SENT".equals(status) && retry.alreadyCommitted();
        System.out.println(ok ? "DEMO PASS" : "DEMO FAIL");
        return ok ? 0 : 1;
      }
    }
  }

  private static PushConsumer consumer(
      EmbeddedRocketMQ mq, CountDownLatch received, AtomicReference<String> got) throws Exception {
    return ClientServiceProvider.loadService()
        .newPushConsumerBuilder()
        .setClientConfiguration(
            ClientConfiguration.newBuilder().setEndpoints(mq.grpcEndpoint()).build())
        .setConsumerGroup("points")
        .setSubscriptionExpressions(Map.of("payment", FilterExpression.SUB_ALL))
        .setMessageListener(
            view -> {
              got.set(
                  view.getProperties().get(Envelope.EVENT_TYPE)
                      + " "
                      + StandardCharsets.UTF_8.decode(view.getBody()));
              received.countDown();
              return ConsumeResult.SUCCESS;
            })
        .build();
  }

  private static String waitForStatus(
      HikariDataSource db, String eventId, String want, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    String status = null;
    while (System.nanoTime() < deadline) {
      try (Connection c = db.getConnection();
          PreparedStatement ps =
              c.prepareStatement("SELECT status FROM txmsg_journal WHERE event_id = ?")) {
        ps.setString(1, eventId);
        try (ResultSet rs = ps.executeQuery()) {
          status = rs.next() ? rs.getString(1) : null;
        }
      }
      if (want.equals(status)) {
        return status;
      }
      Thread.sleep(100);
    }
    return status;
  }

  private static HikariDataSource h2() {
    HikariConfig c = new HikariConfig();
    // File databases must use WRITE_DELAY=0 (DB-FACTS.md); the demo keeps its data in memory.
    c.setJdbcUrl("jdbc:h2:mem:payments;DB_CLOSE_DELAY=-1");
    c.setUsername("sa");
    c.setMaximumPoolSize(8);
    return new HikariDataSource(c);
  }

  private static long ms(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }
}
