package io.txmsg.examples.boot;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Commits a payment and its {@code PaymentSucceeded} event together, the way a Boot service writes
 * it: a {@code @Transactional} method (Boot's JpaTransactionManager) saves the {@link Payment}
 * entity and calls {@link TxMessageTemplate#publish}, which writes the event's journal row in that
 * same transaction. The event is delivered at least once after the transaction committed, and never
 * if it rolled back.
 */
@Service
public class PaymentService {
  private final TxMessageTemplate txmsg;
  private final PaymentRepository payments;
  private final ObservationRegistry observations;

  public PaymentService(
      TxMessageTemplate txmsg,
      PaymentRepository payments,
      ObjectProvider<ObservationRegistry> observations) {
    this.txmsg = txmsg;
    this.payments = payments;
    this.observations = observations.getIfAvailable(() -> ObservationRegistry.NOOP);
  }

  /**
   * Records a successful payment of an order and publishes {@code PaymentSucceeded}. A retried
   * command for an order already paid returns the committed payment and publishes nothing (its
   * event is already committed; the eventId, derived from the order, would say so too).
   *
   * <p>The call is an observation of its own ({@code payment.pay}): with tracing, its span is the
   * parent of txmsg's span of the publish, and the handler's {@code txmsg.consume} span continues
   * the same trace on the consumer side.
   *
   * @return the committed payment
   */
  @Transactional
  public Payment pay(String orderId, String customerId, long amountCents) {
    Optional<Payment> paid = payments.findById(orderId);
    if (paid.isPresent()) {
      return paid.get(); // a retried command: no second payment, no second event
    }
    TxMessage event =
        TxMessage.builder()
            .eventId(EventIds.fromBusinessKey(PaymentSucceeded.TYPE, orderId)) // stable on retry
            .topic(PaymentSucceeded.TOPIC)
            .eventType(PaymentSucceeded.TYPE)
            .aggregate("Order", orderId, 1) // version 1 of the order
            .businessKey(orderId) // for lookups in incidents
            .payloadObject(new PaymentSucceeded(orderId, customerId, amountCents)) // JSON
            .build();
    return Observation.createNotStarted("payment.pay", observations)
        .contextualName("pay")
        .observe(
            () -> {
              // saveAndFlush: the INSERT runs now, before txmsg's pre-commit check, not in the
              // flush at commit that follows it (a failure there still fails the commit, and then
              // nothing is delivered, but an early flush reports it here).
              Payment payment =
                  payments.saveAndFlush(
                      new Payment(orderId, event.eventId(), customerId, amountCents));
              txmsg.publish(event); // joins this transaction: committed with the payment
              return payment;
            });
  }
}
