package io.txmsg.producer;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.Verdict;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handles the half messages the broker gave up checking (over transports that can read its give-up
 * topic: remoting). Such a message will never be delivered by the broker, and a check-back can no
 * longer commit it, so its committed row is republished now rather than after {@code
 * republishAfter}. The rules (docs/architecture.md, "Give-up drain"):
 *
 * <ul>
 *   <li>another store's message, or no txmsg envelope: acknowledged and left alone;
 *   <li>no journal row: acknowledged and left (the local transaction never committed);
 *   <li>DEAD or SENT row: left (SENT is republished under PROXY_ACK only, where it proves nothing);
 *   <li>otherwise the row is claimed through the reconciler's owner token and lease and republished
 *       from the journal, never from the message body; the claim records BROKER_GAVE_UP on the row
 *       and the outcome is counted ({@code txmsg.giveup}).
 * </ul>
 *
 * A row leased to a live owner (a reconciler round mid-republish) is left to that owner. A database
 * failure answers RETRY: the message comes back later.
 */
final class GivenUpRepublisher implements DeliveryHandler {
  private static final Logger log = LoggerFactory.getLogger(GivenUpRepublisher.class);

  private final Journal journal;
  private final Reconciler reconciler;
  private final TxProducerSettings settings;
  private final ProducerMetrics metrics;

  GivenUpRepublisher(
      Journal journal,
      Reconciler reconciler,
      TxProducerSettings settings,
      ProducerMetrics metrics) {
    this.journal = journal;
    this.reconciler = reconciler;
    this.settings = settings;
    this.metrics = metrics;
  }

  @Override
  public Verdict onMessage(InboundMessage m) {
    CheckbackRequest request = EnvelopeCodec.checkbackRequest(m);
    String eventId = request.eventId();
    if (eventId == null || !settings.storeId().equals(request.storeId())) {
      metrics.givenUp("foreign");
      return Verdict.ACK;
    }
    try {
      JournalRow row = journal.find(eventId);
      if (row == null) {
        log.info("given-up half message eventId={} has no journal row: never committed", eventId);
        metrics.givenUp("no_row");
        return Verdict.ACK;
      }
      String token = UUID.randomUUID().toString();
      boolean includeSent = settings.confirmation() == DeliveryConfirmation.PROXY_ACK;
      long lease = settings.leaseDuration().toMillis();
      if (!journal.claimGivenUp(eventId, token, lease, includeSent)) {
        log.info(
            "given-up half message eventId={} left alone: row is {} (settled or leased)",
            eventId,
            row.getStatus());
        metrics.givenUp("settled");
        return Verdict.ACK;
      }
      Reconciler.Result r = reconciler.republish(eventId, token);
      log.warn(
          "the broker gave up checking eventId={} (messageId={}); republished from the journal: {}",
          eventId,
          m.messageId(),
          r);
      metrics.givenUp(
          switch (r) {
            case REPUBLISHED -> "republished";
            case RETRY -> "retry";
            case DEAD -> "dead";
            case LOST_LEASE -> "settled";
          });
      return Verdict.ACK;
    } catch (Exception e) {
      log.warn("given-up half message eventId={} not handled yet: {}", eventId, e.toString());
      return Verdict.RETRY;
    }
  }
}
