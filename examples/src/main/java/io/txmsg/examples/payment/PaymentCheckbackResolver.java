package io.txmsg.examples.payment;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.Resolution;
import io.txmsg.examples.events.PaymentEvents;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the broker's check-back for PaymentSucceeded from the payment table (durable state, never
 * memory), the way a service with an existing order-status table would:
 *
 * <ul>
 *   <li>a payment row committed by this attempt → COMMIT;
 *   <li>a payment row committed by another attempt of the same event → ROLLBACK (that attempt
 *       delivers the event);
 *   <li>no payment row → ask the framework's journal resolver, which fences attempts that never
 *       reached the database and answers UNKNOWN while the local transaction still runs.
 * </ul>
 *
 * Every answer is audited in {@code payment_checkback_audit}.
 */
public final class PaymentCheckbackResolver implements CheckbackResolver {
  private static final Logger log = LoggerFactory.getLogger(PaymentCheckbackResolver.class);

  private final PaymentMapper payments;
  private final CheckbackAuditMapper audit;
  private final CheckbackResolver journal;

  public PaymentCheckbackResolver(
      PaymentMapper payments, CheckbackAuditMapper audit, CheckbackResolver journal) {
    this.payments = payments;
    this.audit = audit;
    this.journal = journal;
  }

  @Override
  public Set<String> topics() {
    return Set.of(PaymentEvents.TOPIC);
  }

  @Override
  public Set<String> eventTypes() {
    return Set.of(PaymentEvents.PAYMENT_SUCCEEDED);
  }

  @Override
  public Resolution resolve(CheckbackRequest request) {
    String committedBy = payments.committedAttempt(request.eventId());
    Resolution answer;
    String answeredBy;
    if (committedBy != null) {
      answer = committedBy.equals(request.attemptId()) ? Resolution.COMMIT : Resolution.ROLLBACK;
      answeredBy = "payment";
    } else {
      answer = journal.resolve(request);
      answeredBy = "journal";
    }
    try {
      audit.insert(
          request.eventId(),
          request.attemptId(),
          request.checkTimes(),
          answer.name(),
          answeredBy,
          System.currentTimeMillis());
    } catch (RuntimeException e) {
      log.warn("check-back audit not written eventId={}: {}", request.eventId(), e.toString());
    }
    return answer;
  }
}
