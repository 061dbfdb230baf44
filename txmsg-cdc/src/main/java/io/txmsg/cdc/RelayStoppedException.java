package io.txmsg.cdc;

/**
 * Thrown on the engine's thread when the relay must not send another row: it is closing or it lost
 * the lease. The engine then stops; only rows already marked processed are in its offsets.
 */
final class RelayStoppedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RelayStoppedException(String reason) {
    super(reason, null, false, false);
  }
}
