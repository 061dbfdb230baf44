package io.txmsg.testkit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

/**
 * An application configured for a gRPC proxy ({@code txmsg.broker.endpoints}, e.g. a default in its
 * application.yml) gets the embedded proxy's endpoint in its place.
 */
@SpringJUnitConfig(EmbeddedTxmsgBrokerGrpcTest.Empty.class)
@TestPropertySource(properties = "txmsg.broker.endpoints=127.0.0.1:8081")
@EmbeddedTxmsgBroker
class EmbeddedTxmsgBrokerGrpcTest {
  @Configuration(proxyBeanMethods = false)
  static class Empty {}

  @Autowired Environment env;

  @Test
  void theProxyEndpointReplacesTheApplicationsOwn() {
    assertThat(env.getProperty("txmsg.broker.endpoints"))
        .isEqualTo(EmbeddedRocketMQ.shared().grpcEndpoint());
    assertThat(env.getProperty("txmsg.broker.name-server")).isEmpty();
  }
}
