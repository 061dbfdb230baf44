package io.txmsg.consumer;

/** The payload bytes are not a valid instance of the handler's parameter type: permanent. */
final class PayloadDecodingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  PayloadDecodingException(String message, Throwable cause) {
    super(message, cause);
  }
}
