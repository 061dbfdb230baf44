package io.txmsg.transport;

import io.txmsg.api.Resolution;

/**
 * Answers the broker's check-back for a half message. {@link Resolution#UNKNOWN} (and any
 * exception, and null) means "ask again later"; the transport never turns it into ROLLBACK.
 */
@FunctionalInterface
public interface CheckbackHandler {
  Resolution check(InboundMessage halfMessage);
}
