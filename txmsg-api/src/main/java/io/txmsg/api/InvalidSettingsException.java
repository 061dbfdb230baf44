package io.txmsg.api;

/**
 * A setting is missing or invalid. Thrown by every txmsg builder's {@code build()} before anything
 * is started or connected; {@link #setting()} names the setting as the settings classes spell it
 * (e.g. {@code topics}, {@code connection.endpoints}, {@code groups[points].maxAttempts}).
 */
public class InvalidSettingsException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final String setting;

  public InvalidSettingsException(String setting, String problem) {
    super("txmsg settings: " + setting + " " + problem);
    this.setting = setting;
  }

  /** The name of the invalid setting. */
  public String setting() {
    return setting;
  }
}
