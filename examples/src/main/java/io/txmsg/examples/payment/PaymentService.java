package io.txmsg.examples.payment;

import io.txmsg.api.EventIds;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxResult;
import io.txmsg.examples.events.OrderPaid;
import io.txmsg.examples.events.OrderRefunded;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.events.PaymentSucceeded;
import io.txmsg.examples.faults.FaultPlan;
import io.txmsg.examples.faults.FaultPlan.Fault;

/**
 * The payment service: each business command writes its row(s) through {@link PaymentMapper} and
 * commits them together with the journal row of its event, through {@link
 * TxMessageTemplate#execute}. The event is then delivered at least once, whatever happens next.
 */
public class PaymentService {
  private final TxMessageTemplate txmsg;
  private final PaymentMapper payments;
  private final FaultPlan faults;

  public PaymentService(TxMessageTemplate txmsg, PaymentMapper payments, FaultPlan faults) {
    this.txmsg = txmsg;
    this.payments = payments;
    this.faults = faults;
  }

  /**
   * Records a successful payment and publishes PaymentSucceeded (order version 1). The eventId is
   * derived from the order, so a retried command reuses it.
   *
   * @param attempt 1 for the first try of this command (the fault plan fails some first tries)
   */
  public TxResult<Integer> pay(String orderId, long amountCents, int attempt) {
    int n = FaultPlan.orderNumber(orderId);
    PaymentSucceeded paid =
        new PaymentSucceeded(orderId, "cust-" + (n % 97), "+1555" + (1000000 + n), amountCents);
    TxMessage event =
        TxMessage.builder()
            .eventId(EventIds.fromBusinessKey(PaymentEvents.PAYMENT_SUCCEEDED, orderId))
            .topic(PaymentEvents.TOPIC)
            .eventType(PaymentEvents.PAYMENT_SUCCEEDED)
            .aggregate(PaymentEvents.AGGREGATE, orderId, 1)
            .businessKey(orderId)
            .payloadObject(paid)
            .build();
    return txmsg.execute(
        event,
        ctx -> {
          // Joins the local transaction that also holds the attempt and journal rows.
          int rows =
              payments.insert(
                  orderId, event.eventId(), ctx.attemptId(), paid.customerId(), amountCents);
          if (attempt == 1 && faults.failingTx(n)) {
            faults.injected(Fault.FAILING_TX);
            throw new IllegalStateException("simulated failure after the payment insert");
          }
          if (attempt == 1 && faults.slowTx(n)) {
            faults.injected(Fault.SLOW_TX);
            Thread.sleep(faults.slowTxMillis()); // the broker checks back meanwhile
          }
          return rows;
        });
  }

  /** Marks the order paid and publishes OrderPaid (order version 2). */
  public TxResult<Integer> markPaid(String orderId) {
    return advance(orderId, PaymentEvents.ORDER_PAID, "PAID", 2, new OrderPaid(orderId));
  }

  /** Refunds the order and publishes OrderRefunded (order version 3). */
  public TxResult<Integer> refund(String orderId, long amountCents) {
    return advance(
        orderId,
        PaymentEvents.ORDER_REFUNDED,
        "REFUNDED",
        3,
        new OrderRefunded(orderId, amountCents));
  }

  private TxResult<Integer> advance(
      String orderId, String eventType, String status, long version, Object payload) {
    TxMessage event =
        TxMessage.builder()
            .eventId(EventIds.fromBusinessKey(eventType, orderId))
            .topic(PaymentEvents.TOPIC)
            .eventType(eventType)
            .aggregate(PaymentEvents.AGGREGATE, orderId, version)
            .businessKey(orderId)
            .payloadObject(payload)
            .build();
    return txmsg.execute(
        event,
        ctx -> {
          if (payments.advance(orderId, status, version) != 1) {
            throw new IllegalStateException(orderId + " is not at version " + (version - 1));
          }
          return 1;
        });
  }
}
