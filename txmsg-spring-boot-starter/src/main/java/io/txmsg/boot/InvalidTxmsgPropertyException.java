package io.txmsg.boot;

import io.txmsg.api.InvalidSettingsException;

/**
 * A {@code txmsg.*} property is missing or invalid; thrown while the application context starts.
 * {@link #setting()} names the property as written in {@code application.yml} (e.g. {@code
 * txmsg.producer.store-id}), not the settings class's name for it: that is what the user can fix.
 */
public class InvalidTxmsgPropertyException extends InvalidSettingsException {
  private static final long serialVersionUID = 1L;

  /**
   * @param property the full property name, e.g. {@code txmsg.broker.name-server}
   * @param problem what is wrong, e.g. {@code must not be blank}
   */
  public InvalidTxmsgPropertyException(String property, String problem) {
    super(property, problem);
  }
}
