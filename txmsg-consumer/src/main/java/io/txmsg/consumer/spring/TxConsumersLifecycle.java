package io.txmsg.consumer.spring;

import io.txmsg.consumer.TxConsumers;
import java.util.concurrent.Callable;
import org.springframework.context.SmartLifecycle;

/**
 * Starts {@link TxConsumers} once the context has refreshed (every handler bean exists and the
 * post-processor has seen it) and closes it first on shutdown.
 */
public class TxConsumersLifecycle implements SmartLifecycle {
  private final Callable<TxConsumers.Builder> builder;
  private volatile TxConsumers consumers;

  public TxConsumersLifecycle(Callable<TxConsumers.Builder> builder) {
    this.builder = builder;
  }

  @Override
  public synchronized void start() {
    if (consumers != null) {
      return;
    }
    try {
      consumers = builder.call().build();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("txmsg consumers failed to start: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void stop() {
    if (consumers != null) {
      consumers.close();
      consumers = null;
    }
  }

  @Override
  public boolean isRunning() {
    return consumers != null;
  }

  /** Late in startup, early in shutdown: handlers and the DataSource outlive consumption. */
  @Override
  public int getPhase() {
    return Integer.MAX_VALUE - 100;
  }

  /** The running consumers (replay, brokerMaxAttempts), or null before start. */
  public TxConsumers consumers() {
    return consumers;
  }
}
