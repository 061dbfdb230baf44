package io.txmsg.api;

/**
 * The message is invalid. Thrown before any side effect: nothing was sent, nothing was written.
 * {@link #field()} names the offending field (e.g. {@code eventId}, {@code payload}).
 */
public class InvalidTxMessageException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public InvalidTxMessageException(String field, String problem) {
    super(field + " " + problem);
    this.field = field;
  }

  /** The name of the invalid field. */
  public String field() {
    return field;
  }
}
