package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.await;
import static io.txmsg.consumer.ConsumerHarness.awaitDb;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.GapPolicy;
import io.txmsg.api.consumer.VersionPolicy;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.store.consume.ConsumeStatus;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Versions 1, 3, 2 arriving in that order, under both policies. */
class VersionGuardTest {
  /** Every test runs on every transport (in-memory and gRPC) × every enabled database. */
  private static final String TRANSPORTS = "io.txmsg.testkit.transport.TestTransport#withDatabases";

  // Generous: over remoting a new group's first redelivery can wait for its client to learn the
  // retry route and rebalance (docs/facts.md, "Remoting transport in detail"); CI saw over 30 s.
  private static final Duration WAIT = ConsumerHarness.DELIVERY_WAIT;

  /** A projection that records the order in which versions were applied. */
  private static EventHandler<Paid> projection() {
    return (event, ctx) -> {
      Connection c = ctx.connection();
      String applied = null;
      try (PreparedStatement ps =
          c.prepareStatement("SELECT applied FROM projection WHERE aggregate_id = ?")) {
        ps.setString(1, ctx.aggregateId());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            applied = rs.getString(1);
          }
        }
      }
      String sql =
          applied == null
              ? "INSERT INTO projection (version, applied, aggregate_id) VALUES (?, ?, ?)"
              : "UPDATE projection SET version = ?, applied = ? WHERE aggregate_id = ?";
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setLong(1, ctx.aggregateVersion());
        ps.setString(2, (applied == null ? "" : applied + ",") + ctx.aggregateVersion());
        ps.setString(3, ctx.aggregateId());
        ps.executeUpdate();
      }
    };
  }

  private static String applied(ConsumerHarness h, String aggId) throws Exception {
    try (Connection c = h.db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT applied FROM projection WHERE aggregate_id = ?")) {
      ps.setString(1, aggId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void monotonicAppliesOneAndThreeAndSkipsTwoAsStale(TestTransport transport, TestDatabase kind)
      throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("search", 5);
      h.start(
          h.consumers(h.settings(g))
              .handler(
                  HandlerDefinition.of(g, h.topic, "PaymentSucceeded", Paid.class, projection())
                      .versionGuard(true)));
      h.sendPaid("v1", "o1", 1, 1);
      awaitDb("v1", WAIT, () -> "1".equals(applied(h, "o1")));
      h.sendPaid("v3", "o1", 3, 3);
      awaitDb("v3", WAIT, () -> "1,3".equals(applied(h, "o1")));
      h.sendPaid("v2", "o1", 2, 2);
      await("v2 skipped", WAIT, () -> h.outcome(g, ConsumeOutcome.STALE) == 1);
      assertThat(applied(h, "o1")).isEqualTo("1,3");
      assertThat(h.consumeLog(g, "v2").getStatus()).isEqualTo(ConsumeStatus.SKIPPED_STALE);
      h.sendPaid("v2", "o1", 2, 2); // a redelivered stale event is a plain duplicate
      await("duplicate", WAIT, () -> h.outcome(g, ConsumeOutcome.DUPLICATE) == 1);
      assertThat(applied(h, "o1")).isEqualTo("1,3");
    }
  }

  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void contiguousWaitsForTwoThenAppliesThree(TestTransport transport, TestDatabase kind)
      throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("search", 20);
      h.start(
          h.consumers(h.settings(g))
              .handler(
                  HandlerDefinition.of(g, h.topic, "PaymentSucceeded", Paid.class, projection())
                      .versionGuard(true)
                      .versionPolicy(VersionPolicy.CONTIGUOUS)
                      .gapPolicy(GapPolicy.PARK, Duration.ofMinutes(5))));
      h.sendPaid("v1", "o1", 1, 1);
      awaitDb("v1", WAIT, () -> "1".equals(applied(h, "o1")));
      h.sendPaid("v3", "o1", 3, 3);
      await("v3 held back by the gap", WAIT, () -> h.outcome(g, ConsumeOutcome.RETRY) >= 1);
      assertThat(applied(h, "o1")).isEqualTo("1");
      h.sendPaid("v2", "o1", 2, 2);
      awaitDb("2 then 3", WAIT, () -> "1,2,3".equals(applied(h, "o1")));
      assertThat(h.consumeLog(g, "v3").getStatus()).isEqualTo(ConsumeStatus.SUCCESS);
      assertThat(h.consumeLog(g, "v3").getAttempt()).isGreaterThan(1);
      assertThat(h.outcome(g, ConsumeOutcome.STALE)).isZero();
    }
  }

  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void contiguousGapPastTheWaitIsParkedOrAppliedByTheGapPolicy(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String parkGroup = h.group("park", 20);
      String applyGroup = h.group("apply", 20);
      h.start(
          h.consumers(h.settings(parkGroup, applyGroup))
              .handler(
                  HandlerDefinition.of(
                          parkGroup, h.topic, "PaymentSucceeded", Paid.class, (e, c) -> {})
                      .versionGuard(true)
                      .versionPolicy(VersionPolicy.CONTIGUOUS)
                      .gapPolicy(GapPolicy.PARK, Duration.ofSeconds(1)))
              .handler(
                  HandlerDefinition.of(
                          applyGroup, h.topic, "PaymentSucceeded", Paid.class, projection())
                      .versionGuard(true)
                      .versionPolicy(VersionPolicy.CONTIGUOUS)
                      .gapPolicy(GapPolicy.APPLY, Duration.ofSeconds(1))));
      h.sendPaid("v1", "o1", 1, 1);
      awaitDb("v1", WAIT, () -> "1".equals(applied(h, "o1")));
      // Both groups must have applied v1 before v3 is sent: a group whose version row is still
      // empty accepts any first version, so a park group that met v3 first would apply it and
      // then call v1 stale (seen in CI when its v1 delivery lagged the apply group's).
      await(
          "v1 applied by the park group",
          WAIT,
          () -> h.outcome(parkGroup, ConsumeOutcome.APPLIED) == 1);
      h.sendPaid("v3", "o1", 3, 3);
      awaitDb("v3 applied after the wait", WAIT, () -> "1,3".equals(applied(h, "o1")));
      ConsumerHarness.await(
          () -> "v3 parked with GAP; outcomes (both groups): " + h.outcomesOf("v1", "v3"),
          WAIT,
          () -> {
            try {
              return !h.deadLetters(parkGroup, "v3").isEmpty();
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
      assertThat(h.deadLetters(parkGroup, "v3").get(0).getReason()).isEqualTo(ParkReason.GAP);
      h.sendPaid("v2", "o1", 2, 2); // late: stale for the group that applied 3
      await("v2 stale", WAIT, () -> h.outcome(applyGroup, ConsumeOutcome.STALE) == 1);
      assertThat(applied(h, "o1")).isEqualTo("1,3");
    }
  }
}
