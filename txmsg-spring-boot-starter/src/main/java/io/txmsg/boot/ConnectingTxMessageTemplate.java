package io.txmsg.boot;

import io.txmsg.api.TransactionalBusinessAction;
import io.txmsg.api.TransportException;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxResult;
import io.txmsg.producer.TxProducer;

/**
 * The template the application injects: the running producer's, or, while the producer cannot start
 * because the broker is unreachable, a refusal before any side effect.
 */
final class ConnectingTxMessageTemplate implements TxMessageTemplate {
  private final TxmsgProducerRuntime runtime;

  ConnectingTxMessageTemplate(TxmsgProducerRuntime runtime) {
    this.runtime = runtime;
  }

  /**
   * {@inheritDoc}
   *
   * @throws TransportException while the producer has not started (the broker could not be reached
   *     yet): nothing was sent, nothing was written, the action did not run
   */
  @Override
  public <R> TxResult<R> execute(TxMessage message, TransactionalBusinessAction<R> action) {
    return current().execute(message, action);
  }

  /**
   * {@inheritDoc}
   *
   * @throws TransportException while the producer has not started (the broker could not be reached
   *     yet): nothing was written or sent; the caller's transaction is untouched
   */
  @Override
  public void publish(TxMessage... messages) {
    current().publish(messages);
  }

  private TxMessageTemplate current() {
    return runtime.producer().map(TxProducer::template).orElseThrow(this::notStarted);
  }

  private TransportException notStarted() {
    TxmsgRuntimeStatus s = runtime.status();
    return new TransportException(
        "the txmsg producer has not started ("
            + s.describe()
            + "); nothing was sent or committed, the action did not run",
        s.lastFailure());
  }

  @Override
  public String toString() {
    return "ConnectingTxMessageTemplate{" + runtime.status().describe() + "}";
  }
}
