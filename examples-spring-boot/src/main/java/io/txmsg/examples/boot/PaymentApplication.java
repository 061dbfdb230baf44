package io.txmsg.examples.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The payment flow as a Spring Boot 4 application, the quick start of a Boot team: JPA entities and
 * repositories, the remoting transport, and no txmsg {@code @Configuration}: the starter builds the
 * producer and the consumers from {@code application.yml} ({@code txmsg.*}), over Boot's
 * DataSource, JPA transaction manager, MeterRegistry and ObservationRegistry.
 *
 * <ul>
 *   <li>{@link PaymentService} commits a {@link Payment} entity and its {@code PaymentSucceeded}
 *       event through the auto-configured {@code TxMessageTemplate};
 *   <li>{@link PointsHandler}, a {@code @TxMessageHandler} bean, saves a {@link PointsLedgerEntry}
 *       in the transaction that claims the event in the consume log (applied once);
 *   <li>the actuator's {@code txmsg} health contributor reports the journal's backlog;
 *   <li>Boot's Brave tracing makes one trace from the service call through the broker into the
 *       handler.
 * </ul>
 *
 * <p>Run it against a RocketMQ cluster: {@code PAYMENTS_NAME_SERVER=127.0.0.1:9876}; or against the
 * embedded broker with {@code LocalPaymentApplication} (test sources, README).
 */
@SpringBootApplication
public class PaymentApplication {
  public static void main(String[] args) {
    SpringApplication.run(PaymentApplication.class, args);
  }
}
