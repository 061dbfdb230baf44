package io.txmsg.micrometer;

import io.micrometer.observation.Observation;
import io.txmsg.api.MeterNames;
import io.txmsg.api.Observed;

/**
 * A started Micrometer observation in scope until {@link #close()}, which tags how the call ended
 * ({@code txmsg.outcome}, "unknown" unless told) and stops it. The producer's and the consumer's
 * observations return subclasses of this that also implement their own {@code Observed} type.
 */
public class StartedObservation implements Observed {
  private final Observation observation;
  private final Observation.Scope scope;
  private volatile String outcome = "unknown";

  /** Starts {@code observation} and opens its scope on the calling thread. */
  public StartedObservation(Observation observation) {
    this.observation = observation;
    observation.start();
    this.scope = observation.openScope();
  }

  @Override
  public void outcome(String value) {
    outcome = value;
  }

  @Override
  public void error(Throwable error) {
    observation.error(error);
  }

  @Override
  public void close() {
    observation.lowCardinalityKeyValue(MeterNames.TAG_OUTCOME, outcome);
    scope.close();
    observation.stop();
  }
}
