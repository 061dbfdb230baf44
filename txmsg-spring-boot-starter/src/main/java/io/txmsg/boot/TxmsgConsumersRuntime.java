package io.txmsg.boot;

import io.txmsg.consumer.TxConsumers;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * The consumers of a Spring Boot application: started once the context has refreshed (every handler
 * bean exists), closed first on shutdown. When the broker cannot be reached at start (and {@code
 * txmsg.broker.fail-fast} is off) the application starts all the same and the consumers subscribe
 * in the background as soon as the broker answers; nothing is consumed meanwhile, and the events
 * wait on the broker.
 */
public final class TxmsgConsumersRuntime implements TxmsgRuntime, SmartLifecycle {
  private final RuntimeStarter<TxConsumers> starter;
  private volatile boolean running;

  TxmsgConsumersRuntime(Supplier<TxConsumers> build, boolean failFast, Duration retry) {
    this.starter = new RuntimeStarter<>("consumers", build, failFast, retry);
  }

  @Override
  public void start() {
    starter.start();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    starter.stop();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Late in startup, early in shutdown: handlers and the DataSource outlive consumption. */
  @Override
  public int getPhase() {
    return Integer.MAX_VALUE - 100;
  }

  /** The consumers once they run (replay, the groups' broker max attempts), else empty. */
  public Optional<TxConsumers> consumers() {
    return starter.running();
  }

  @Override
  public String name() {
    return "consumers";
  }

  @Override
  public TxmsgRuntimeStatus status() {
    return starter.status();
  }
}
