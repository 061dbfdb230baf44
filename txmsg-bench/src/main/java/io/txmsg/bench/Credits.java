package io.txmsg.bench;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.HandlerDefinition;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import java.sql.Connection;
import java.sql.PreparedStatement;

/** What the consumers of the consumer and end-to-end sections do with each event. */
final class Credits {
  private Credits() {}

  /** The payload of the consumer benchmarks. */
  public record Paid(String id, int amount, String currency, String account) {}

  /** Inserts the credit row of one event (in the caller's transaction). */
  static void credit(Connection c, String group, String id, Paid p) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO credit (consumer_group, event_id, account, amount) VALUES (?,?,?,?)")) {
      ps.setString(1, group);
      ps.setString(2, id);
      ps.setString(3, p.account());
      ps.setInt(4, p.amount());
      ps.executeUpdate();
    }
  }

  /**
   * The txmsg consumers both sections measure: one group on {@code topic}, 8 threads, a handler
   * that inserts the credit row in the framework's transaction; the caller adds its listener.
   */
  static TxConsumers.Builder creditConsumers(
      BenchMain b, String group, String topic, boolean versionGuard) {
    return creditConsumers(b, b.connection(), group, topic, versionGuard);
  }

  /** 8 consumption threads, one group subscribed to the topic. */
  static TxConsumerSettings settings(
      io.txmsg.transport.BrokerConnection connection, String group, String topic) {
    return new TxConsumerSettings()
        .connection(connection)
        .consumptionThreads(8)
        .group(ConsumerGroupConfig.of(group).subscribe(topic));
  }

  /** The same on the given transport (gRPC or remoting): only the connection differs. */
  static TxConsumers.Builder creditConsumers(
      BenchMain b,
      io.txmsg.transport.BrokerConnection connection,
      String group,
      String topic,
      boolean versionGuard) {
    return TxConsumers.builder()
        .dataSource(b.consumerDs)
        .settings(settings(connection, group, topic))
        .handler(
            HandlerDefinition.of(
                    group,
                    topic,
                    "PaymentSucceeded",
                    Paid.class,
                    (Paid event, ConsumeContext ctx) ->
                        credit(ctx.connection(), group, ctx.eventId(), event))
                .versionGuard(versionGuard));
  }
}
