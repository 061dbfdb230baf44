package io.txmsg.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a missing or invalid {@code txmsg.*} property in Boot's "APPLICATION FAILED TO START"
 * form: which property, what is wrong, and that it is fixed in the application's configuration.
 */
public class InvalidTxmsgPropertyFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidTxmsgPropertyException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidTxmsgPropertyException cause) {
    return new FailureAnalysis(
        cause.getMessage(),
        "Set "
            + cause.setting()
            + " to a valid value in application.yml (or another property source); the README's"
            + " Spring Boot section lists every txmsg property with its default.",
        cause);
  }
}
