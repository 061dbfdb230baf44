package io.txmsg.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a missing transport in Boot's "APPLICATION FAILED TO START" form, naming the artifact.
 */
public class MissingTransportFailureAnalyzer
    extends AbstractFailureAnalyzer<MissingTransportException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, MissingTransportException cause) {
    return new FailureAnalysis(
        cause.getMessage(),
        "Add the dependency "
            + cause.artifact()
            + " to the application (the starter brings no transport: "
            + TransportCheck.REMOTING_ARTIFACT
            + " for NameServer addresses, "
            + TransportCheck.GRPC_ARTIFACT
            + " for a RocketMQ 5 proxy's gRPC endpoints), or set the address property of the"
            + " transport that is there.",
        cause);
  }
}
