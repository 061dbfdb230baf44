package io.txmsg.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.api.DeliveryMode;
import io.txmsg.examples.app.DemoConfiguration;
import io.txmsg.examples.app.DemoEnvironment;
import io.txmsg.examples.app.DemoSchema;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.faults.FaultPlan;
import io.txmsg.examples.faults.PoisonAndDuplicateSender;
import io.txmsg.examples.notification.FakeSmsGateway;
import io.txmsg.examples.payment.PaymentCheckbackResolver;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.transport.BrokerConnection;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The payment demo, start to end: broker and database, the Spring application, the load with its
 * faults, the waits for quiescence, the operator's fix and replay, and the reconciliation report.
 */
public final class PaymentDemo {
  static final List<String> GROUPS =
      List.of(PaymentEvents.POINTS, PaymentEvents.NOTIFICATION, PaymentEvents.SEARCH_PROJECTION);

  private PaymentDemo() {}

  /** Runs the demo and returns its report (never null; the caller decides the exit code). */
  public static ReconciliationReport run(DemoOptions o, PrintStream out) throws Exception {
    long t0 = System.nanoTime();
    Path workDir = Files.createTempDirectory("txmsg-demo-");
    DemoLogging.toFile(workDir.resolve("demo.log"));
    out.printf(
        "txmsg payment demo: %d orders, %s mode, faults %s%n  logs: %s%n",
        o.orders,
        o.mode,
        o.faults.isEmpty() ? "off" : "on " + o.faults,
        workDir.resolve("demo.log"));
    EmbeddedRocketMQ mq = null;
    try {
      BrokerConnection connection;
      if (o.endpoint == null && o.nameServer == null) {
        out.println("[1/6] starting embedded RocketMQ 5 (NameServer + Broker + gRPC proxy)...");
        mq = EmbeddedRocketMQ.builder().start();
        // 10 s per request instead of the 3 s default: the embedded broker shares this machine's
        // cores with the demo, and a CI run saw the gRPC producer's first route query (the
        // client's part of it: 2 s) time out at start while other builds ran.
        connection =
            (o.transport.equals("remoting")
                    ? BrokerConnection.nameServer(mq.namesrvAddress())
                    : BrokerConnection.endpoints(mq.grpcEndpoint()))
                .withRequestTimeout(Duration.ofSeconds(10));
        // A half message needs a TRANSACTION topic; OUTBOX and CDC send plain messages to a
        // NORMAL one.
        mq.createTopic(
            PaymentEvents.TOPIC,
            o.mode != DeliveryMode.HALF_MESSAGE ? TopicType.NORMAL : TopicType.TRANSACTION);
        for (String g : GROUPS) {
          mq.createConsumerGroup(g, 5, Duration.ofMillis(500), Duration.ofSeconds(2));
          // A fresh group starts where RocketMQ decides at its first rebalance; over remoting
          // (CONSUME_FROM_LAST_OFFSET) a queue's first message stored between the broker's "no
          // offset" answer and the client's max-offset query is never delivered to that group.
          // The demo sends at once, and unpaced (--rate 0) over remoting two loaded CI runs each
          // left one message never delivered to one group, as this race does. Starting each
          // group at the queues' first message closes it.
          mq.startGroupAtFirstMessage(g, PaymentEvents.TOPIC);
        }
        out.printf(
            "      ready at %s (%s) after %.1f s%n",
            connection.address(), connection.protocol(), seconds(t0));
      } else {
        connection =
            o.nameServer != null
                ? BrokerConnection.nameServer(o.nameServer)
                : BrokerConnection.endpoints(o.endpoint);
        out.printf(
            "[1/6] using RocketMQ at %s: the %s topic '%s' and the groups %s must exist%n",
            connection.address(),
            o.mode != DeliveryMode.HALF_MESSAGE ? "NORMAL" : "TRANSACTION",
            PaymentEvents.TOPIC,
            GROUPS);
      }
      String url =
          o.jdbcUrl != null
              ? o.jdbcUrl
              : "jdbc:h2:file:" + workDir.resolve("payments") + ";WRITE_DELAY=0;AUTO_SERVER=TRUE";
      try (HikariDataSource ds = dataSource(url, o)) {
        out.printf(
            "[2/6] database %s%n      inspect it: %s%n",
            url, InspectCommand.journalStats(url, o.userFor(url)));
        if (o.password != null && !o.password.isEmpty()) {
          out.printf("      %s%n", InspectCommand.passwordHint());
        }
        return runApplication(o, out, t0, connection, ds, url);
      }
    } finally {
      if (mq != null) {
        mq.close();
      }
    }
  }

  private static ReconciliationReport runApplication(
      DemoOptions o,
      PrintStream out,
      long t0,
      BrokerConnection connection,
      HikariDataSource ds,
      String url)
      throws Exception {
    JdbcTemplate jdbc = new JdbcTemplate(ds);
    if (DemoSchema.rows(jdbc) > 0) {
      if (!o.reset) {
        throw new IllegalStateException(
            "the database already holds demo or txmsg rows: use a fresh database or --reset");
      }
      DemoSchema.reset(jdbc);
    }
    FaultPlan plan = new FaultPlan(o.orders, o.faults, o.slowTxMillis);
    FakeSmsGateway gateway = new FakeSmsGateway(plan);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    out.println("[3/6] starting the Spring application (producer, 3 consumer groups)...");
    AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
    ctx.registerBean("dataSource", DataSource.class, () -> ds);
    ctx.registerBean(
        DemoEnvironment.class, () -> new DemoEnvironment(connection, o.consumerThreads, o.mode));
    ctx.registerBean(FaultPlan.class, () -> plan);
    ctx.registerBean(FakeSmsGateway.class, () -> gateway);
    ctx.registerBean(MeterRegistry.class, () -> registry);
    ctx.register(DemoConfiguration.class);
    try (ShutdownQuickly app = new ShutdownQuickly(ctx)) {
      ctx.refresh();
      try (DemoRelay relay = DemoRelay.startIf(o, out, ds, url, connection);
          PoisonAndDuplicateSender rogue =
              new PoisonAndDuplicateSender(
                  connection,
                  jdbc,
                  ctx.getBean(PaymentCheckbackResolver.class),
                  o.mode != DeliveryMode.HALF_MESSAGE)) {
        out.printf("      started after %.1f s%n", seconds(t0));
        return new Scenario(o, out, t0, ctx, jdbc, plan, gateway, registry, rogue).play();
      }
    }
  }

  /** The demo's pool on {@code url}; an H2 database it creates gets the user {@code sa}. */
  static HikariDataSource dataSource(String url, DemoOptions o) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(o.userFor(url));
    c.setPassword(o.password);
    c.setMaximumPoolSize(o.producerThreads + 3 * o.consumerThreads + 10);
    c.setPoolName("payments");
    return new HikariDataSource(c);
  }

  static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
