package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.testkit.db.DatabaseIndependent;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An invalid {@code txmsg.*} value fails the startup with a message naming the property, and Boot's
 * failure report (the starter's FailureAnalyzer) says which property to fix.
 */
@DatabaseIndependent
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
        "txmsg.broker.endpoints",
        "txmsg.broker.name-server",
        "txmsg.producer.topics=pay",
        "txmsg.producer.store-id=shop");
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
        "txmsg.consumer.groups.points.topics=pay");
  }

  @Test
  void producerTopicsAreRequiredWhenTheProducerIsSwitchedOn() {
    assertFailure(
        "txmsg.producer.topics",
        "needs at least one",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.producer.store-id=shop",
        "txmsg.producer.enabled=true");
  }

  @Test
  void aStoreIdIsRequiredWhenThereIsNoApplicationName() {
    assertFailure(
        "txmsg.producer.store-id",
        "is required",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.producer.topics=pay");
  }

  @Test
  void anApplicationNameThatIsNoValidStoreIdNamesBothProperties() {
    assertFailure(
        "txmsg.producer.store-id",
        "is not set, and spring.application.name 'Payments Service', its default, is not a valid"
            + " store id",
        "spring.application.name=Payments Service",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.producer.topics=pay");
  }

  @Test
  void aBadValueOfTheApplicationsOwnSettingsBeanNamesTheSettingNotAProperty() {
    runner
        .withBean(
            io.txmsg.producer.TxProducerSettings.class,
            () -> new io.txmsg.producer.TxProducerSettings().topics("pay").reconcileBatchSize(0))
        .withPropertyValues("txmsg.broker.endpoints=proxy:8081", "txmsg.producer.store-id=shop")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              InvalidSettingsException e =
                  find(ctx.getStartupFailure(), InvalidSettingsException.class);
              assertThat(e).isNotInstanceOf(InvalidTxmsgPropertyException.class);
              assertThat(e.setting()).isEqualTo("reconcileBatchSize");
            });
  }

  @Test
  void aTypoInAPropertyNameFailsTheStartNamingItAndTheClosestProperty() {
    assertUnknown(
        "txmsg.producer.topcs",
        "did you mean txmsg.producer.topics?",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.producer.topcs=pay");
    assertUnknown(
        "txmsg.consumer.groups.points.topcs",
        "did you mean txmsg.consumer.groups.points.topics?",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.consumer.groups.points.topcs=pay");
  }

  @Test
  void aRemovedPropertyFailsTheStartSayingItWasRemoved() {
    assertUnknown(
        "txmsg.health.parked-scan-limit",
        "removed: the health check counts PARKED dead letters per group",
        "txmsg.health.parked-scan-limit=1000");
  }

  @Test
  void aHandlerWithoutAConfiguredGroupFailsTheStart() {
    runner
        .withBean(Handler.class)
        .withPropertyValues("txmsg.broker.endpoints=proxy:8081")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              InvalidTxmsgPropertyException e =
                  find(ctx.getStartupFailure(), InvalidTxmsgPropertyException.class);
              assertThat(e.setting()).isEqualTo("txmsg.consumer.groups");
              assertThat(e.getMessage())
                  .contains("is a @TxMessageHandler of group points")
                  .contains("set txmsg.consumer.groups.points.topics=pay");
            });
    // switched off on purpose: the handler is not a mistake
    runner
        .withBean(Handler.class)
        .withPropertyValues("txmsg.consumer.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed());
  }

  /** A handler bean. */
  static class Handler {
    @io.txmsg.api.consumer.TxMessageHandler(
        topic = "pay",
        consumerGroup = "points",
        eventType = "Paid")
    public void on(String payload) {}
  }

  @Test
  void anAddressWhoseTransportIsNotOnTheClassPathNamesTheArtifactToAdd() {
    runner
        .withClassLoader(new FilteredClassLoader("io.txmsg.rocketmq.remoting"))
        .withPropertyValues(
            "txmsg.broker.name-server=ns:9876", "txmsg.consumer.groups.points.topics=pay")
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              MissingTransportException e =
                  find(ctx.getStartupFailure(), MissingTransportException.class);
              assertThat(e.setting()).isEqualTo("txmsg.broker.name-server");
              assertThat(e.getMessage())
                  .contains("selects the remoting transport, which is not on the class path")
                  .contains("transports on the class path: grpc")
                  .contains("add the dependency io.txmsg:txmsg-rocketmq-remoting");
              FailureAnalysis report =
                  Contexts.analyze(ctx.getStartupFailure(), MissingTransportException.class);
              assertThat(report.getAction())
                  .startsWith("Add the dependency io.txmsg:txmsg-rocketmq-remoting");
            });
    runner
        .withClassLoader(new FilteredClassLoader("io.txmsg.rocketmq"))
        .withPropertyValues(
            "txmsg.broker.endpoints=proxy:8081", "txmsg.consumer.groups.points.topics=pay")
        .run(
            ctx -> {
              MissingTransportException e =
                  find(ctx.getStartupFailure(), MissingTransportException.class);
              assertThat(e.setting()).isEqualTo("txmsg.broker.endpoints");
              assertThat(e.getMessage())
                  .contains("transports on the class path: none")
                  .contains("add the dependency io.txmsg:txmsg-rocketmq");
            });
  }

  @Test
  void aBadGroupSettingNamesTheGroupProperty() {
    assertFailure(
        "txmsg.consumer.groups.points.max-attempts",
        "must be >= 1",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.consumer.groups.points.topics=pay",
        "txmsg.consumer.groups.points.max-attempts=0");
  }

  @Test
  void aLeaseShorterThanTheProxyAcceptsNamesItsProperty() {
    assertFailure(
        "txmsg.consumer.leased-delivery.lease",
        "must be at least PT10S",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.consumer.enabled=true",
        "txmsg.consumer.leased-delivery.lease=5s");
  }

  @Test
  void aBadTablePrefixNamesItsProperty() {
    assertFailure(
        "txmsg.consumer.table-prefix",
        "must match",
        "txmsg.broker.endpoints=proxy:8081",
        "txmsg.consumer.enabled=true",
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

  private void assertUnknown(String property, String why, String... properties) {
    runner
        .withPropertyValues(properties)
        .run(
            ctx -> {
              assertThat(ctx).hasFailed();
              FailureAnalysis report =
                  Contexts.analyze(
                      ctx.getStartupFailure(), UnboundConfigurationPropertiesException.class);
              assertThat(report.getDescription())
                  .startsWith("Unknown txmsg properties")
                  .contains(property + " (")
                  .contains(why);
              assertThat(report.getAction()).startsWith("Remove or correct " + property);
            });
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " in", t);
  }

  private static BindException findBind(Throwable t) {
    while (t != null && !(t instanceof BindException)) {
      t = t.getCause();
    }
    return (BindException) t;
  }
}
