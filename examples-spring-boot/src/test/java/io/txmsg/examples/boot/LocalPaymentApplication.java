package io.txmsg.examples.boot;

import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.domain.Sort;

/**
 * The payment application on this machine alone: an embedded RocketMQ cluster (test kit) and the
 * application's in-memory H2. Starts the cluster, creates the topic and group of {@code
 * application.yml}, starts {@link PaymentApplication} on it, pays three orders, waits until the
 * points handler credited each of them once, prints the ledger and stops. Run with {@code ./mvnw -q
 * -pl examples-spring-boot exec:java} (after {@code ./mvnw -q install -DskipTests}).
 */
public final class LocalPaymentApplication {
  private LocalPaymentApplication() {}

  public static void main(String[] args) throws Exception {
    try (EmbeddedRocketMQ mq = EmbeddedRocketMQ.builder().start()) {
      mq.createTopic(PaymentSucceeded.TOPIC, TopicType.TRANSACTION);
      mq.createConsumerGroup("points", 15, Duration.ofMillis(500), Duration.ofSeconds(1));
      System.out.println("embedded RocketMQ: " + mq);
      try (ConfigurableApplicationContext app =
          SpringApplication.run(
              PaymentApplication.class, "--payments.name-server=" + mq.namesrvAddress())) {
        PaymentService payments = app.getBean(PaymentService.class);
        PointsLedgerRepository ledger = app.getBean(PointsLedgerRepository.class);
        mq.awaitSubscribed("points", PaymentSucceeded.TOPIC, Duration.ofSeconds(60));
        List<Payment> paid = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
          Payment p = payments.pay("order-" + i, "customer-" + i, 1250L * i);
          System.out.println("paid order-" + i + ": eventId=" + p.getEventId());
          paid.add(p);
        }
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (paid.stream().anyMatch(p -> ledger.findByEventId(p.getEventId()).isEmpty())) {
          if (System.nanoTime() > until) {
            throw new IllegalStateException("not every payment was credited within 60 s");
          }
          Thread.sleep(100);
        }
        System.out.println("points ledger:");
        for (PointsLedgerEntry e : ledger.findAll(Sort.by("orderId"))) {
          System.out.println(
              "  " + e.getOrderId() + " " + e.getCustomerId() + " +" + e.getPoints() + " points");
        }
      }
    }
  }
}
