package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An invalid {@code txmsg.*} value fails the startup with a message naming the property, and Boot's
 * failure report (the starter's FailureAnalyzer) says which property to fix.
 */
class InvalidPropertiesTest {
  private final ApplicationContextRunner runner = Contexts.runner();

  @Test
  void aBadStoreIdNamesItsProperty() {
    assertFailure(
        "txmsg.producer.store-id",
        "must be 1..32 characters",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.producer.topics=pay",
        "txmsg.producer.store-id=not valid!");
  }

  @Test
  void aMissingBrokerNamesTheBrokerProperties() {
    assertFailure(
        "txmsg.broker.endpoints", "txmsg.broker.name-server", "txmsg.producer.topics=pay");
  }

  @Test
  void bothBrokerAddressesAreRefused() {
    assertFailure(
        "txmsg.broker",
        "choose one",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.broker.name-server=ns:9876",
        "txmsg.producer.topics=pay");
  }

  @Test
  void aBadNameServerNamesItsProperty() {
    assertFailure(
        "txmsg.broker.name-server",
        "is not host:port",
        "txmsg.broker.name-server=nameserver",
        "txmsg.producer.enabled=false");
  }

  @Test
  void producerTopicsAreRequired() {
    assertFailure(
        "txmsg.producer.topics", "needs at least one", "txmsg.broker.endpoints=proxy:8081");
  }

  @Test
  void aBadGroupSettingNamesTheGroupProperty() {
    assertFailure(
        "txmsg.consumer.groups.points.max-attempts",
        "must be >= 1",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.producer.enabled=false",
        "txmsg.consumer.groups.points.topics=pay",
        "txmsg.consumer.groups.points.max-attempts=0");
  }

  @Test
  void aLeaseShorterThanTheProxyAcceptsNamesItsProperty() {
    assertFailure(
        "txmsg.consumer.leased-delivery.lease",
        "must be at least PT10S",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.producer.enabled=false",
        "txmsg.consumer.leased-delivery.lease=5s");
  }

  @Test
  void aBadTablePrefixNamesItsProperty() {
    assertFailure(
        "txmsg.consumer.table-prefix",
        "must match",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.producer.enabled=false",
        "txmsg.consumer.table-prefix=Bad-Prefix");
  }

  @Test
  void aValueOfTheWrongTypeIsReportedByTheBinderWithItsProperty() {
    runner
        .withPropertyValues("txmsg.producer.delivery-mode=SIDEWAYS")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              BindException bind = findBind(ctx.getStartupFailure());
              assertThat(bind).isNotNull();
              assertThat(bind.getMessage()).contains("'txmsg.producer.delivery-mode'");
            });
  }

  private void assertFailure(String property, String problem, String... properties) {
    runner
        .withPropertyValues(properties)
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              Throwable root = ctx.getStartupFailure();
              while (root.getCause() != null && !(root instanceof InvalidTxmsgPropertyException)) {
                root = root.getCause();
              }
              assertThat(root).isInstanceOf(InvalidTxmsgPropertyException.class);
              assertThat(((InvalidTxmsgPropertyException) root).setting()).isEqualTo(property);
              assertThat(root.getMessage()).contains(property).contains(problem);
              // Boot's "APPLICATION FAILED TO START" report says the same and what to do.
              FailureAnalysis report =
                  Contexts.analyze(ctx.getStartupFailure(), InvalidTxmsgPropertyException.class);
              assertThat(report.getDescription()).contains(property).contains(problem);
              assertThat(report.getAction()).startsWith("Set " + property + " to a valid value");
            });
  }

  private static BindException findBind(Throwable t) {
    while (t != null && !(t instanceof BindException)) {
      t = t.getCause();
    }
    return (BindException) t;
  }
}
