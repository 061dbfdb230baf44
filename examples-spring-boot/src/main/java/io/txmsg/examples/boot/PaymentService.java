package io.txmsg.examples.boot;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxResult;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;

/**
 * Commits a payment and its {@code PaymentSucceeded} event together: the payment entity is saved in
 * the action of {@link TxMessageTemplate#execute}, whose local transaction (run by Boot's
 * JpaTransactionManager) also writes the journal row; the event is delivered at least once after
 * that transaction committed, and never if it rolled back.
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
   * Records a successful payment of an order and publishes {@code PaymentSucceeded}. The eventId is
   * derived from the order, so a retried command reuses it and gets {@code ALREADY_COMMITTED}
   * instead of a second payment.
   *
   * <p>The call is an observation of its own ({@code payment.pay}): with tracing, its span is the
   * parent of {@code txmsg.execute}, and the handler's {@code txmsg.consume} span continues the
   * same trace on the consumer side.
   *
   * @return the outcome; {@link TxResult#value()} is the saved payment
   */
  public TxResult<Payment> pay(String orderId, String customerId, long amountCents) {
    PaymentSucceeded paid = new PaymentSucceeded(orderId, customerId, amountCents);
    TxMessage event =
        TxMessage.builder()
            .eventId(EventIds.fromBusinessKey(PaymentSucceeded.TYPE, orderId)) // stable on retry
            .topic(PaymentSucceeded.TOPIC)
            .eventType(PaymentSucceeded.TYPE)
            .aggregate("Order", orderId, 1) // version 1 of the order
            .businessKey(orderId) // for lookups in incidents
            .payloadObject(paid) // JSON by default
            .build();
    return Observation.createNotStarted("payment.pay", observations)
        .contextualName("pay")
        .observe(
            () ->
                txmsg.execute(
                    event,
                    // The repository joins the transaction that also holds the journal row.
                    // saveAndFlush: the INSERT runs inside the action, where txmsg watches the
                    // transaction's statements, not at the commit's flush after txmsg's last check.
                    ctx ->
                        payments.saveAndFlush(
                            new Payment(
                                orderId,
                                event.eventId(),
                                ctx.attemptId(),
                                customerId,
                                amountCents))));
  }
}
