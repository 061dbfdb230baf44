package io.txmsg.producer;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.PublishException;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.transport.HalfMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit of a half message as the store's {@link DeliveryConfirmation} asks for it, and the
 * SENT record that may follow: one place for {@code execute}, the joined publish and the
 * reconciler.
 */
final class HalfCommit {
  private static final Logger log = LoggerFactory.getLogger(HalfCommit.class);

  private HalfCommit() {}

  /**
   * Commits: synchronously under {@link DeliveryConfirmation#BROKER_ACK} (returns whether the
   * broker answered SUCCESS), otherwise oneway (returns false).
   *
   * @throws PublishException as {@link HalfMessage#commit()}: the outcome is unknown, the
   *     check-back and the reconciler finish the event
   */
  static boolean commit(HalfMessage half, DeliveryConfirmation confirmation)
      throws PublishException {
    if (confirmation == DeliveryConfirmation.BROKER_ACK) {
      return half.commitAndConfirm(); // SUCCESS proves the final message was written
    }
    half.commit();
    return false;
  }

  /**
   * After a commit that did not throw: records the row SENT where the confirmation takes the commit
   * as proof. BROKER_ACK's SUCCESS and PROXY_ACK's accepted commit go to the batched recorder; with
   * {@code sentBatchSize} 1, PROXY_ACK's is written here, on the caller's thread. A record that is
   * lost leaves the row PENDING: the reconciler republishes it later, a duplicate at worst.
   */
  static void recordSent(
      JournalRow row,
      boolean brokerAnswered,
      TxProducerSettings settings,
      Journal journal,
      ImmediatePublisher publisher) {
    boolean proxyAck = settings.confirmation() == DeliveryConfirmation.PROXY_ACK;
    if (brokerAnswered || (proxyAck && settings.sentBatchSize() > 1)) {
      publisher.acknowledged(row.getEventId(), row.getBrokerMessageId());
    } else if (proxyAck) {
      try {
        journal.markSentByProducer(row.getEventId(), row.getBrokerMessageId());
      } catch (Exception e) {
        log.warn("could not mark SENT eventId={}: {}", row.getEventId(), e.toString());
      }
    }
  }
}
