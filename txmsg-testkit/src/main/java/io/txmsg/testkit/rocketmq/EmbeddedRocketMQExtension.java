package io.txmsg.testkit.rocketmq;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Injects the JVM-wide {@link EmbeddedRocketMQ#shared() shared} cluster into parameters of type
 * {@link EmbeddedRocketMQ}, and kills it when the test run ends (through the root extension
 * context's store; the JVM shutdown hook is the fallback). Usually applied through {@link
 * EmbeddedRocketMQTest}.
 */
public final class EmbeddedRocketMQExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(EmbeddedRocketMQExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == EmbeddedRocketMQ.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(SharedCluster.class, key -> new SharedCluster(), SharedCluster.class)
        .get();
  }

  /** Closes the shared cluster when the root context (the whole test run) closes. */
  @SuppressWarnings("deprecation") // CloseableResource for JUnit before 5.13, AutoCloseable after
  private static final class SharedCluster
      implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    EmbeddedRocketMQ get() {
      return EmbeddedRocketMQ.shared();
    }

    @Override
    public void close() {
      EmbeddedRocketMQ.closeShared();
    }
  }
}
