package io.txmsg.boot;

import io.txmsg.api.TxMessageTemplate;
import io.txmsg.producer.TxProducer;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

/**
 * The producer of a Spring Boot application: built when this bean is created, like a plain {@code
 * TxProducer} bean, unless the broker cannot be reached then (and {@code txmsg.broker.fail-fast} is
 * off): the application starts all the same, {@link #template()}'s {@code execute} throws {@link
 * io.txmsg.api.TransportException} without side effects, and the producer is built in the
 * background as soon as the broker answers. Closed when the context closes.
 */
public final class TxmsgProducerRuntime implements TxmsgRuntime, InitializingBean, DisposableBean {
  private final RuntimeStarter<TxProducer> starter;
  private final TxMessageTemplate template;

  TxmsgProducerRuntime(Supplier<TxProducer> build, boolean failFast, java.time.Duration retry) {
    this.starter = new RuntimeStarter<>("producer", build, failFast, retry);
    this.template = new ConnectingTxMessageTemplate(this);
  }

  @Override
  public void afterPropertiesSet() {
    starter.start();
  }

  @Override
  public void destroy() {
    starter.stop();
  }

  /** The producer once it runs (its reconciler, its store), else empty. */
  public Optional<TxProducer> producer() {
    return starter.running();
  }

  /**
   * The application's {@link TxMessageTemplate}: the running producer's, or, until the producer
   * runs, one whose {@code execute} throws {@link io.txmsg.api.TransportException} saying why.
   */
  public TxMessageTemplate template() {
    return template;
  }

  @Override
  public String name() {
    return "producer";
  }

  @Override
  public TxmsgRuntimeStatus status() {
    return starter.status();
  }
}
