package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** SIGKILL of the consumer JVM inside a handler and between commit and ack, repeatedly. */
class ConsumerCrashTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  @ParameterizedTest
  @MethodSource(DB)
  void killedMidHandlerAndAfterCommitBeforeAck(TestTransport transport, TestDatabase kind)
      throws Exception {
    try (World w = new World(transport, kind)) {
      Child producer = w.producer("producer", "count", "0");
      int rounds = Scale.pick(1, 10);
      long next = 0;
      int faults = 0;
      Map<String, Long> kills = new LinkedHashMap<>();
      for (int round = 0; round < rounds; round++) {
        for (String mode : new String[] {"MID_HANDLER", "AFTER_COMMIT"}) {
          long crashAt = next + 3;
          Child consumer =
              w.consumer(
                  "consumer-" + mode + "-" + round,
                  "crash",
                  mode,
                  "crashAt",
                  Long.toString(crashAt));
          Child load =
              w.producer(
                  "load-" + mode + "-" + round,
                  "start",
                  Long.toString(next),
                  "count",
                  "8",
                  "rate",
                  "50");
          consumer.await("CRASHPOINT", Duration.ofSeconds(60));
          kills.put("f-" + crashAt, System.currentTimeMillis());
          consumer.kill();
          faults++;
          load.await("DONE", Duration.ofSeconds(60));
          next += 10;
        }
      }
      Child survivor = w.consumer("consumer-final");
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(120, 300)), 0);
      for (var k : kills.entrySet()) {
        w.recovery(k.getKey(), k.getValue());
      }
      Report.row("consumer-kill mid-handler / after commit", w, faults, v);
      survivor.kill();
      producer.kill();
      assertThat(v.facts()).isEqualTo(rounds * 2 * 8L);
      assertThat(v.clean()).as(v.toString()).isTrue();
    }
  }
}
