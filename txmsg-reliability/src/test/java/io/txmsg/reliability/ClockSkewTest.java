package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Application clocks 5 minutes ahead of and behind the database (libfaketime on the child JVMs,
 * {@link Faketime}; the database and the broker keep the real time), under the suite's faults:
 *
 * <ul>
 *   <li>a producer 5 min behind killed after its local commit: the check-back is answered from the
 *       database by one of two live producers, one 5 min ahead and one 5 min behind;
 *   <li>a producer 5 min ahead killed after its half message, before its local transaction: nothing
 *       may be delivered (a skewed answerer may fence it late or at once: fencing only decides
 *       when, never what: consistency never depends on clocks or check counts);
 *   <li>a consumer 5 min ahead killed mid-handler, its fact applied by an instance 5 min behind.
 * </ul>
 *
 * Origin times (the envelope's, and the journal's created_at) come from the producer's clock, so an
 * event looks up to 10 minutes older or younger to a consumer than it is. The consume-log retention
 * is one hour here, so the TOO_OLD bound (retention minus a margin of a fifth, 12 min) covers that
 * spread, as it must (the margin is at least the clock skew); a TOO_OLD park would show as stuck
 * and lost. Leases and due times are computed by the database, in SQL.
 *
 * <p>Part of {@code ./mvnw verify} where libfaketime is installed (Debian's package, or the file
 * {@code -Dtxmsg.reliability.faketime} names): a machine with only a JDK skips it with a message;
 * CI installs the package and sets {@code TXMSG_REQUIRE_FAKETIME=1}, under which a missing library
 * fails the test instead.
 */
class ClockSkewTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";
  private static final String AHEAD = "+5m";
  private static final String BEHIND = "-5m";
  private static final String RETENTION = "PT60M";

  @ParameterizedTest
  @MethodSource(DB)
  void skewedProducersAndConsumersLoseNothingAndApplyEachFactOnce(
      TestTransport transport, TestDatabase kind) throws Exception {
    boolean installed = Faketime.find().isPresent();
    if (!installed && Faketime.required()) {
      throw new IllegalStateException(Faketime.REQUIRED_ENV + "=1: " + Faketime.missing());
    }
    assumeTrue(installed, Faketime::missing);
    int rounds = Scale.kills(2, 10);
    try (World w = new World(transport, kind)) {
      Child answererAhead = w.producer("answerer-ahead", skewed(AHEAD, "count", "0"));
      Child answererBehind = w.producer("answerer-behind", skewed(BEHIND, "count", "0"));
      Child consumerAhead = w.consumer("consumer-ahead", skewed(AHEAD));
      long next = 0;
      int faults = 0;
      long facts = 0;
      List<String> committedBeforeHalfCommit = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        // Behind, killed after its local commit: f-(next+3) is committed and must be delivered.
        String committed = "f-" + (next + 3);
        Child behind =
            w.producer(
                "producer-behind-" + round,
                skewed(BEHIND, load(next, 6, "AFTER_LOCAL_COMMIT", next + 3)));
        behind.await("CRASHPOINT", Duration.ofSeconds(60));
        long killedAt = System.currentTimeMillis();
        behind.kill();
        w.fault(World.Fault.KILL);
        faults++;
        w.awaitApplied(committed, Duration.ofSeconds(Scale.pick(120, 300)));
        committedBeforeHalfCommit.add(committed);
        w.recovered(committed, System.currentTimeMillis() - killedAt);
        facts += 4; // f-next .. f-(next+3)
        next += 10;

        // Ahead, killed after its half message: f-(next+3) never commits.
        Child ahead =
            w.producer(
                "producer-ahead-" + round,
                skewed(AHEAD, load(next, 6, "AFTER_HALF_SEND", next + 3)));
        ahead.await("CRASHPOINT", Duration.ofSeconds(60));
        ahead.kill();
        w.fault(World.Fault.KILL);
        faults++;
        facts += 3; // f-next .. f-(next+2)
        next += 10;
      }
      consumerAhead.kill(); // idle by now: the consumer-kill rounds need the only instance
      for (int round = 0; round < rounds; round++) {
        String fact = "f-" + (next + 3);
        Child consumer =
            w.consumer(
                "consumer-ahead-crash-" + round,
                skewed(AHEAD, "crash", "MID_HANDLER", "crashAt", Long.toString(next + 3)));
        Child load = w.producer("load-behind-" + round, skewed(BEHIND, load(next, 8, "NONE", -1)));
        consumer.await("CRASHPOINT", Duration.ofSeconds(60));
        Child other = w.consumer("consumer-behind-" + round, skewed(BEHIND));
        long killedAt = System.currentTimeMillis();
        consumer.kill();
        w.fault(World.Fault.KILL);
        faults++;
        load.await("DONE", Duration.ofSeconds(60));
        w.awaitApplied(fact, Duration.ofSeconds(Scale.pick(120, 300)));
        w.recovered(fact, System.currentTimeMillis() - killedAt);
        other.kill();
        facts += 8;
        next += 10;
      }
      Child survivor = w.consumer("consumer-final-behind", skewed(BEHIND));
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(120, 300)), 0);
      Report.row("application clocks ±5 min against the database", w, faults, v);
      // The skew took effect: origin times are the producers' clocks, updated_at the database's.
      assertThat(originMinusDatabaseSeconds(w, "f-0"))
          .as("f-0 from a producer 5 min behind")
          .isBetween(-330L, -270L);
      assertThat(originMinusDatabaseSeconds(w, "f-10"))
          .as("f-10 from a producer 5 min ahead")
          .isBetween(270L, 330L);
      // The facts killed after their local commit were committed by a check-back answered from the
      // journal by one of the two skewed answerers: each journal row records a check-back, and
      // the answerers' meters count COMMIT answers for at least as many.
      Child.Meters ahead = answererAhead.meters();
      Child.Meters behind = answererBehind.meters();
      System.out.println("METERS " + ahead + " / " + behind);
      for (String fact : committedBeforeHalfCommit) {
        var row = w.journalRow(fact);
        assertThat(row).as("journal row of " + fact).isNotNull();
        assertThat(row.getCheckbackCount())
            .as("check-backs recorded on the journal row of " + fact)
            .isPositive();
      }
      assertThat(
              ahead.sum("txmsg.checkback", "resolution=COMMIT", "reason=found")
                  + behind.sum("txmsg.checkback", "resolution=COMMIT", "reason=found"))
          .as("check-backs the skewed answerers answered COMMIT: " + ahead + " / " + behind)
          .isGreaterThanOrEqualTo(committedBeforeHalfCommit.size());
      survivor.kill();
      answererAhead.kill();
      answererBehind.kill();
      assertThat(v.facts()).isEqualTo(facts);
      assertThat(v.clean()).as(v.toString()).isTrue();
    }
  }

  /** {@code key=value} pairs for a producer of {@code count} facts from {@code start}. */
  private static String[] load(long start, int count, String crash, long crashAt) {
    return new String[] {
      "start", Long.toString(start),
      "count", Integer.toString(count),
      "rate", "50",
      "crash", crash,
      "crashAt", Long.toString(crashAt)
    };
  }

  /** The arguments plus this clock skew and the one-hour consume-log retention. */
  private static String[] skewed(String skew, String... extra) {
    String[] out = new String[extra.length + 4];
    out[0] = "clockSkew";
    out[1] = skew;
    out[2] = "consumeLogRetention";
    out[3] = RETENTION;
    System.arraycopy(extra, 0, out, 4, extra.length);
    return out;
  }

  /** created_at (the producer's origin time) minus the database's first updated_at, seconds. */
  private static long originMinusDatabaseSeconds(World w, String eventId) throws Exception {
    try (Connection c = w.dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT created_at, updated_at FROM txmsg_journal WHERE event_id = ?")) {
      ps.setString(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as(eventId + " in the journal").isTrue();
        return Duration.between(rs.getTimestamp(2).toInstant(), rs.getTimestamp(1).toInstant())
            .toSeconds();
      }
    }
  }
}
