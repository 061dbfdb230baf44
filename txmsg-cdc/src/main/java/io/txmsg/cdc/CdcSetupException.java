package io.txmsg.cdc;

import io.txmsg.api.TxMessagingException;

/**
 * The database does not allow the relay to read its log as configured: a setting, a privilege or an
 * object (publication, slot) is missing or wrong. The message names what to set or run. Thrown by
 * {@link CdcRelay#start()} before anything was read or sent.
 */
public class CdcSetupException extends TxMessagingException {
  private static final long serialVersionUID = 1L;

  public CdcSetupException(String message) {
    super(message);
  }

  public CdcSetupException(String message, Throwable cause) {
    super(message, cause);
  }
}
