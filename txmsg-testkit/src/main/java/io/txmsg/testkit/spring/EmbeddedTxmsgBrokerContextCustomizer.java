package io.txmsg.testkit.spring;

import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Before the context refreshes: reads the topology from the context's environment, creates it on
 * the shared embedded cluster, and registers the broker address as the first property source. Two
 * test classes with the same annotation values share a cached context (equals/hashCode).
 */
final class EmbeddedTxmsgBrokerContextCustomizer implements ContextCustomizer {
  static final String PROPERTY_SOURCE = "embeddedTxmsgBroker";

  private final EmbeddedTxmsgBroker.Protocol protocol;
  private final String[] fifoTopics;
  private final String[] normalTopics;
  private final String[] transactionTopics;
  private final int retryMaxTimes;

  EmbeddedTxmsgBrokerContextCustomizer(EmbeddedTxmsgBroker annotation) {
    this.protocol = annotation.protocol();
    this.fifoTopics = annotation.fifoTopics().clone();
    this.normalTopics = annotation.normalTopics().clone();
    this.transactionTopics = annotation.transactionTopics().clone();
    this.retryMaxTimes = annotation.retryMaxTimes();
  }

  @Override
  public void customizeContext(
      ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
    ConfigurableEnvironment env = context.getEnvironment();
    TxmsgTopology topology =
        TxmsgTopology.read(env, fifoTopics, normalTopics, transactionTopics, retryMaxTimes);
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    topology.createOn(mq);
    boolean grpc =
        protocol == EmbeddedTxmsgBroker.Protocol.GRPC
            || (protocol == EmbeddedTxmsgBroker.Protocol.AUTO
                && !blank(env.getProperty("txmsg.broker.endpoints")));
    Map<String, Object> properties = new LinkedHashMap<>();
    // The other address is blanked: the application's own (e.g. a default in application.yml) would
    // otherwise make two.
    properties.put("txmsg.broker.endpoints", grpc ? mq.grpcEndpoint() : "");
    properties.put("txmsg.broker.name-server", grpc ? "" : mq.namesrvAddress());
    env.getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, properties));
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EmbeddedTxmsgBrokerContextCustomizer c
        && protocol == c.protocol
        && Arrays.equals(fifoTopics, c.fifoTopics)
        && Arrays.equals(normalTopics, c.normalTopics)
        && Arrays.equals(transactionTopics, c.transactionTopics)
        && retryMaxTimes == c.retryMaxTimes;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        protocol,
        Arrays.hashCode(fifoTopics),
        Arrays.hashCode(normalTopics),
        Arrays.hashCode(transactionTopics),
        retryMaxTimes);
  }
}
