package io.txmsg.boot;

import io.txmsg.api.InvalidSettingsException;

/**
 * The broker address property chooses a transport that is not on the class path (the starter brings
 * none: the application adds {@code txmsg-rocketmq-remoting} or {@code txmsg-rocketmq}). Thrown
 * while the context starts, before anything connects.
 */
public class MissingTransportException extends InvalidSettingsException {
  private static final long serialVersionUID = 1L;
  private final String artifact;

  /**
   * @param property the address property that chose the transport
   * @param problem what is missing
   * @param artifact the dependency to add, {@code groupId:artifactId}
   * @param found which transports are on the class path
   */
  public MissingTransportException(String property, String problem, String artifact, String found) {
    super(property, problem + " (" + found + "): add the dependency " + artifact);
    this.artifact = artifact;
  }

  /** The dependency that brings the transport, {@code groupId:artifactId}. */
  public String artifact() {
    return artifact;
  }
}
