package io.txmsg.producer;

import io.txmsg.api.Envelope;
import io.txmsg.store.journal.Journal;
import io.txmsg.transport.BatchHandler;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery confirmation: the store's confirm group ({@code txmsg-confirm-<storeId>}) reads the
 * store's topics through the transport and marks the rows of messages carrying this store id SENT,
 * one UPDATE per batch; the transport acknowledges the batch only after that UPDATE committed. A
 * message that reached the topic is what "delivered" means here: not the proxy accepting a oneway
 * commit. If the UPDATE fails the batch comes back later; marking SENT is idempotent, so a
 * redelivered or duplicated message is harmless. See docs/architecture.md, "Delivery confirmation".
 */
final class DeliveryConfirmer implements BatchHandler {
  private static final Logger log = LoggerFactory.getLogger(DeliveryConfirmer.class);

  private final Journal journal;
  private final String storeId;

  DeliveryConfirmer(Journal journal, String storeId) {
    this.journal = journal;
    this.storeId = storeId;
  }

  /**
   * Starts the confirm group for every topic the store sends to: {@code topics} and {@code
   * publishTopics} (the events of {@code TxContext.publish} are confirmed the same way).
   */
  static Subscription start(Transport transport, Journal journal, TxProducerSettings s) {
    return transport.confirmDeliveries(
        new ConfirmationSpec(
            s.confirmGroup(), s.allTopics(), s.confirmBatchSize(), s.confirmFlushInterval()),
        new DeliveryConfirmer(journal, s.storeId()));
  }

  @Override
  public boolean onBatch(List<InboundMessage> batch) {
    List<String> ids = new ArrayList<>(batch.size());
    for (InboundMessage m : batch) {
      Map<String, String> p = m.properties();
      String eventId = p.get(Envelope.EVENT_ID);
      // Another store's (or a foreign) message is not ours to confirm: acked without an update.
      if (eventId != null && storeId.equals(p.get(Envelope.STORE_ID))) {
        ids.add(eventId);
      }
    }
    if (ids.isEmpty()) {
      return true;
    }
    try {
      int n = journal.markSent(ids);
      log.debug("confirmed {} of {} delivered events", n, ids.size());
      return true;
    } catch (Exception e) {
      log.warn(
          "confirmation of {} events not recorded (they come back later): {}",
          ids.size(),
          e.toString());
      return false;
    }
  }
}
