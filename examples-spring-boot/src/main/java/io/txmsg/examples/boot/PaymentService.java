package io.txmsg.examples.boot;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxResult;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * Commits a payment and its {@code PaymentSucceeded} event together: the payment row is inserted in
 * the action of {@link TxMessageTemplate#execute}, whose local transaction also writes the journal
 * row; the event is delivered at least once after that transaction committed, and never if it
 * rolled back.
 */
@Service
public class PaymentService {
  private final TxMessageTemplate txmsg;
  private final JdbcTemplate jdbc;
  private final ObservationRegistry observations;

  public PaymentService(
      TxMessageTemplate txmsg,
      JdbcTemplate jdbc,
      ObjectProvider<ObservationRegistry> observations) {
    this.txmsg = txmsg;
    this.jdbc = jdbc;
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
   * @return the outcome; {@link TxResult#value()} is the number of payment rows inserted
   */
  public TxResult<Integer> pay(String orderId, String customerId, long amountCents) {
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
                    // JdbcTemplate joins the transaction that also holds the journal row.
                    ctx ->
                        jdbc.update(
                            "INSERT INTO payment (order_id, event_id, attempt_id, customer_id,"
                                + " amount_cents) VALUES (?, ?, ?, ?, ?)",
                            orderId,
                            event.eventId(),
                            ctx.attemptId(),
                            customerId,
                            amountCents)));
  }
}
