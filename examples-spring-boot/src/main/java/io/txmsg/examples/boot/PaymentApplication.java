package io.txmsg.examples.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The payment flow as a Spring Boot 4 application. There is no txmsg {@code @Configuration}: the
 * starter builds the producer and the consumers from {@code application.yml} ({@code txmsg.*}),
 * over Boot's DataSource, transaction manager, MeterRegistry and ObservationRegistry.
 *
 * <ul>
 *   <li>{@link PaymentService} commits a payment row and its {@code PaymentSucceeded} event through
 *       the auto-configured {@code TxMessageTemplate};
 *   <li>{@link PointsHandler}, a {@code @TxMessageHandler} bean, credits the points ledger in the
 *       transaction that claims the event in the consume log (applied once);
 *   <li>the actuator's {@code txmsg} health contributor reports the journal's backlog;
 *   <li>Boot's Brave tracing makes one trace from the service call through the broker into the
 *       handler.
 * </ul>
 *
 * <p>Run it against a RocketMQ 5 proxy: {@code PAYMENTS_BROKER_ENDPOINTS=127.0.0.1:8081}.
 */
@SpringBootApplication
public class PaymentApplication {
  public static void main(String[] args) {
    SpringApplication.run(PaymentApplication.class, args);
  }
}
