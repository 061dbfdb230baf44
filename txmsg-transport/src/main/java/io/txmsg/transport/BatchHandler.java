package io.txmsg.transport;

import java.util.List;

/**
 * Called by a transport with a batch of messages read by a store's confirm group. Returning true
 * acknowledges the whole batch; false (or an exception) leaves every message of it to come back
 * later, so the handler must only return true after its own effect (the SENT update) committed.
 */
@FunctionalInterface
public interface BatchHandler {
  boolean onBatch(List<InboundMessage> batch);
}
