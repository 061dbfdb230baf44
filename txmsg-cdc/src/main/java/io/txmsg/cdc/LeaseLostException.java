package io.txmsg.cdc;

/** A write of the relay was fenced: another instance holds the store's lease now. */
final class LeaseLostException extends Exception {
  private static final long serialVersionUID = 1L;

  LeaseLostException(String message) {
    super(message);
  }
}
