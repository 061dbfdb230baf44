package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.REAL;
import static io.txmsg.consumer.ConsumerHarness.awaitDb;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.store.consume.CommandRow;
import io.txmsg.store.consume.CommandStatus;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** External side effects through the command outbox. */
class CommandOutboxTest {
  private static final Duration WAIT = ConsumerHarness.DELIVERY_WAIT;

  @ParameterizedTest
  @MethodSource(REAL)
  void anExternalCallFailingTwiceThenSucceedingIsExecutedOncePerIdempotencyKey(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("notification", 5);
      Map<String, Integer> calls = new ConcurrentHashMap<>();
      Map<String, Integer> delivered = new ConcurrentHashMap<>();
      List<String> keysFromHandler = new CopyOnWriteArrayList<>();
      h.start(
          h.consumers(h.settings(g))
              .handler(
                  HandlerDefinition.of(
                      g,
                      h.topic,
                      "PaymentSucceeded",
                      Paid.class,
                      (event, ctx) -> {
                        keysFromHandler.add(
                            ctx.recordCommand(
                                "sms",
                                ("paid " + event.amount()).getBytes(StandardCharsets.UTF_8)));
                        if (ctx.eventId().equals("n2")) {
                          ctx.recordCommand("unknown-type", null);
                          ctx.recordCommand("rejected", null);
                        }
                      }))
              .commandExecutor(
                  "sms",
                  cmd -> {
                    int n = calls.merge(cmd.idempotencyKey(), 1, Integer::sum);
                    if (n <= 2) {
                      throw new java.io.IOException("gateway timeout (injected) " + n);
                    }
                    delivered.merge(cmd.idempotencyKey(), 1, Integer::sum); // the gateway's dedup
                  })
              .commandExecutor(
                  "rejected",
                  cmd -> {
                    throw new PermanentConsumeException("number blocked");
                  }));
      h.sendPaid("n1", "p1", 1, 5);
      h.sendPaid("n1", "p1", 1, 5); // a duplicate event records no second command
      h.sendPaid("n2", "p2", 1, 6);
      String k1 = g + ":n1:1";
      String k2 = g + ":n2:1";
      awaitDb(
          "both SMS done",
          WAIT,
          () ->
              command(h, g, "n1", 1).getStatus() == CommandStatus.DONE
                  && command(h, g, "n2", 1).getStatus() == CommandStatus.DONE);
      ConsumerHarness.quiet(Duration.ofSeconds(1));
      assertThat(keysFromHandler).containsExactlyInAnyOrder(k1, k2);
      assertThat(calls).containsEntry(k1, 3).containsEntry(k2, 3);
      assertThat(delivered).containsEntry(k1, 1).containsEntry(k2, 1);
      assertThat(command(h, g, "n1", 1).getAttempts()).isEqualTo(3);
      assertThat(storeCommands(h, g, "n1")).hasSize(1);
      CommandRow unknown = command(h, g, "n2", 2);
      assertThat(unknown.getStatus()).isEqualTo(CommandStatus.PARKED);
      assertThat(unknown.getLastError()).contains("no executor");
      awaitDb(
          "rejected parked",
          WAIT,
          () -> command(h, g, "n2", 3).getStatus() == CommandStatus.PARKED);
      assertThat(command(h, g, "n2", 3).getLastError()).contains("number blocked");
    }
  }

  private static List<CommandRow> storeCommands(ConsumerHarness h, String g, String eventId)
      throws Exception {
    return h.commands.findByEvent(g, eventId);
  }

  private static CommandRow command(ConsumerHarness h, String g, String eventId, int seq)
      throws Exception {
    return storeCommands(h, g, eventId).stream()
        .filter(c -> c.getSeq() == seq)
        .findFirst()
        .orElseThrow();
  }
}
