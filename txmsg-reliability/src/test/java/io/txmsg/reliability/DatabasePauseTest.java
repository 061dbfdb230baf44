package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The database paused, not killed: every connection of a producer JVM and a consumer JVM goes
 * through an in-test TCP proxy ({@link TcpProxy}) that holds all bytes for the pause (no RST, no
 * FIN: a database whose process stopped, or a partition that heals), then lets them through. A
 * SIGSTOP of the PostgreSQL postmaster would leave its backends running, so the pause is made on
 * the wire, the same way for every database. Statements wait; local transactions may outlive the
 * producer's timeout and roll back; check-backs meanwhile answer UNKNOWN; the consumer's leases are
 * renewed by the client while its handlers wait. Afterwards every committed fact is delivered and
 * applied once.
 */
class DatabasePauseTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  @ParameterizedTest
  @MethodSource(DB)
  void databasePausedWhileAProducerCommitsAndAConsumerApplies(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (World w = new World(transport, kind)) {
      InetSocketAddress db = w.databaseAddress();
      try (TcpProxy link = new TcpProxy(db.getHostString(), db.getPort())) {
        String url = w.databaseUrlVia(link.port());
        Child consumer = w.consumer("consumer-proxied", "url", url);
        Child producer =
            w.producer(
                "producer-proxied",
                "url",
                url,
                "count",
                Integer.toString(Scale.pick(200, 1500)),
                "rate",
                "20",
                "stay",
                "true");
        int pauses = Scale.pick(1, 3);
        Duration pause = Duration.ofSeconds(Scale.pick(10, 30));
        for (int i = 0; i < pauses; i++) {
          Thread.sleep(3_000);
          link.blackHole(true);
          w.faultStarted(World.Fault.DATABASE);
          Thread.sleep(pause.toMillis());
          link.blackHole(false);
          w.faultEnded();
        }
        producer.await("DONE", Duration.ofSeconds(Scale.pick(180, 600)));
        World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(120, 300)), 0);
        Report.row(
            "database paused " + pause.toSeconds() + " s (all bytes held on the wire)",
            w,
            pauses,
            v);
        consumer.kill();
        producer.kill();
        assertThat(v.facts()).isPositive();
        assertThat(v.clean()).as(v.toString()).isTrue();
      }
    }
  }
}
