package io.txmsg.examples;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Closes the Spring context, but waits at most a few seconds: closing seven RocketMQ push consumers
 * one after the other waits for each long poll. The report is already computed by then.
 */
final class ShutdownQuickly implements AutoCloseable {
  private static final long WAIT_MILLIS = 5_000;
  private final ConfigurableApplicationContext context;

  ShutdownQuickly(ConfigurableApplicationContext context) {
    this.context = context;
  }

  @Override
  public void close() throws InterruptedException {
    if (!context.isActive()) {
      return;
    }
    Thread closer = new Thread(context::close, "demo-shutdown");
    closer.setDaemon(true);
    closer.start();
    closer.join(WAIT_MILLIS);
  }
}
