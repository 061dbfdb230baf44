package io.txmsg.reliability;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.HandlerDefinition;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.transport.BrokerConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;

/**
 * The suite's two consumer groups. {@code points} records every fact it applies; {@code proj} keeps
 * a per-aggregate projection behind the monotonic version guard and records what it applied. The
 * {@code applied} table has no unique key on purpose: applying twice leaves two rows.
 */
final class Handlers {
  /** The payload. */
  public record Fact(long fact) {}

  /** The consumers' lease (leased delivery over gRPC). */
  static final Duration LEASE = Duration.ofSeconds(15);

  private Handlers() {}

  /** The connection a child JVM was told to use: {@code transport} is GRPC or REMOTING. */
  static BrokerConnection connection(Args a) {
    return "REMOTING".equals(a.get("transport"))
        ? BrokerConnection.nameServer(a.get("namesrv"))
        : BrokerConnection.endpoints(a.get("endpoint"));
  }

  /**
   * The suite's consumer settings. Leased delivery (15 s, retries 0.5–2 s like the groups' broker
   * policy) makes a dead or paused gRPC consumer's messages come back after one lease with the
   * broker's default channel expiry; remoting ignores it.
   */
  static TxConsumerSettings settings(
      BrokerConnection connection, String topic, String points, String proj) {
    return settings(connection, topic, points, proj, null);
  }

  /**
   * The same with a consume-log retention of {@code consumeLogRetention} (null: the default), for
   * runs that archive the consume log: events older than 80 % of it are parked TOO_OLD rather than
   * applied, as in production.
   */
  static TxConsumerSettings settings(
      BrokerConnection connection,
      String topic,
      String points,
      String proj,
      Duration consumeLogRetention) {
    TxConsumerSettings s = settings0(connection, topic, points, proj);
    return consumeLogRetention == null
        ? s
        : s.consumeLogRetention(consumeLogRetention).tooOldMargin(consumeLogRetention.dividedBy(5));
  }

  private static TxConsumerSettings settings0(
      BrokerConnection connection, String topic, String points, String proj) {
    return new TxConsumerSettings()
        .connection(connection)
        .consumptionThreads(4)
        .leasedDelivery(LEASE, Duration.ofMillis(500), Duration.ofSeconds(2))
        .dlqDrain(true, Duration.ofSeconds(2))
        .group(ConsumerGroupConfig.of(points).subscribe(topic))
        .group(ConsumerGroupConfig.of(proj).subscribe(topic));
  }

  static TxConsumers.Builder register(
      TxConsumers.Builder b, String topic, String points, String proj, String hangOnEvent) {
    return register(b, topic, points, proj, hangOnEvent, null);
  }

  /**
   * The suite's two groups. The points handler hangs for good on {@code hangOnEvent} (the parent
   * SIGKILLs the JVM there) and stops for {@link Args#PAUSE_WINDOW} on {@code pauseOnEvent}, its
   * writes uncommitted, so the parent can SIGSTOP the JVM there and SIGCONT it later; then it
   * carries on and commits.
   */
  static TxConsumers.Builder register(
      TxConsumers.Builder b,
      String topic,
      String points,
      String proj,
      String hangOnEvent,
      String pauseOnEvent) {
    return b.handler(
            HandlerDefinition.of(
                points,
                topic,
                "FactRecorded",
                Fact.class,
                (f, ctx) -> {
                  applied(ctx);
                  if (ctx.eventId().equals(hangOnEvent)) {
                    Args.hang("CRASHPOINT MID_HANDLER " + ctx.eventId());
                  }
                  if (ctx.eventId().equals(pauseOnEvent)) {
                    Args.pausePoint("CRASHPOINT PAUSE_MID_HANDLER " + ctx.eventId());
                  }
                }))
        .handler(
            HandlerDefinition.of(
                    proj,
                    topic,
                    "FactRecorded",
                    Fact.class,
                    (f, ctx) -> {
                      project(ctx);
                      applied(ctx);
                    })
                .versionGuard(true));
  }

  static void applied(ConsumeContext ctx) throws Exception {
    try (PreparedStatement ps =
        ctx.connection()
            .prepareStatement(
                "INSERT INTO applied (consumer_group, fact_id, version, applied_ms)"
                    + " VALUES (?, ?, ?, ?)")) {
      ps.setString(1, ctx.consumerGroup());
      ps.setString(2, ctx.eventId());
      ps.setLong(3, ctx.aggregateVersion());
      ps.setLong(4, System.currentTimeMillis());
      ps.executeUpdate();
    }
  }

  /** Upsert by UPDATE-then-INSERT: the version guard already serialises per aggregate. */
  static void project(ConsumeContext ctx) throws Exception {
    Connection c = ctx.connection();
    try (PreparedStatement up =
        c.prepareStatement("UPDATE projection SET version = ? WHERE aggregate_id = ?")) {
      up.setLong(1, ctx.aggregateVersion());
      up.setString(2, ctx.aggregateId());
      if (up.executeUpdate() == 1) {
        return;
      }
    }
    try (PreparedStatement in =
        c.prepareStatement("INSERT INTO projection (aggregate_id, version) VALUES (?, ?)")) {
      in.setString(1, ctx.aggregateId());
      in.setLong(2, ctx.aggregateVersion());
      in.executeUpdate();
    }
  }
}
