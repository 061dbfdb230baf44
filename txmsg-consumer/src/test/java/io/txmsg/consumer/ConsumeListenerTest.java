package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.Envelope;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ParkedEvent;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link ConsumeListener#onParked} carries the park reason and the dead letter's key. */
class ConsumeListenerTest {
  private static final Duration WAIT = ConsumerHarness.DELIVERY_WAIT;

  @ParameterizedTest
  @MethodSource(ConsumerHarness.DB)
  void aParkedEventIsReportedWithItsReasonAndDeadLetterKey(TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(TestTransport.IN_MEMORY, kind)) {
      String g = h.group("points", 5);
      List<ParkedEvent> parked = new CopyOnWriteArrayList<>();
      h.start(
          h.consumers(h.settings(g))
              .listener(
                  new ConsumeListener() {
                    @Override
                    public void onOutcome(
                        String group, String type, String id, ConsumeOutcome outcome) {}

                    @Override
                    public void onParked(ParkedEvent event) {
                      parked.add(event);
                    }
                  })
              .handler(
                  HandlerDefinition.of(
                      g,
                      h.topic,
                      "PaymentSucceeded",
                      Paid.class,
                      (event, ctx) -> {
                        if (event.account().equals("frozen")) {
                          throw new PermanentConsumeException("account frozen");
                        }
                        ConsumerHarness.credit(ctx.connection(), g, ctx.eventId(), event);
                      })));
      // A malformed envelope (no event type) is parked at once with MALFORMED_ENVELOPE.
      byte[] body = ConsumerHarness.paid("a", 1);
      Map<String, String> noType =
          new HashMap<>(
              ConsumerHarness.envelope("no-type", "PaymentSucceeded", "Payment", "p1", 1, body));
      noType.remove(Envelope.EVENT_TYPE);
      h.send(noType, body);
      byte[] frozen = ConsumerHarness.paid("frozen", 2);
      h.send(
          ConsumerHarness.envelope("frozen-1", "PaymentSucceeded", "Payment", "p2", 1, frozen),
          frozen);
      h.sendPaid("good", "p3", 1, 3);

      await("both parks reported", WAIT, () -> parked.size() >= 2);
      await("PARKED outcomes reported", WAIT, () -> h.outcome(g, ConsumeOutcome.PARKED) >= 2);
      ParkedEvent malformed = find(parked, "no-type");
      assertThat(malformed.consumerGroup()).isEqualTo(g);
      assertThat(malformed.reason()).isEqualTo("MALFORMED_ENVELOPE");
      assertThat(malformed.eventType()).isNull();
      assertThat(malformed.detail()).contains(Envelope.EVENT_TYPE);
      assertThat(malformed.deliveryAttempt()).isEqualTo(1);
      ParkedEvent permanent = find(parked, "frozen-1");
      assertThat(permanent.consumerGroup()).isEqualTo(g);
      assertThat(permanent.eventType()).isEqualTo("PaymentSucceeded");
      assertThat(permanent.reason()).isEqualTo("PERMANENT_ERROR");
      assertThat(permanent.detail()).isEqualTo("account frozen");
      // The key the listener got finds the dead letter, with the same reason.
      assertThat(h.deadLetters(g, "frozen-1"))
          .singleElement()
          .satisfies(d -> assertThat(d.getReason()).isEqualTo(ParkReason.PERMANENT_ERROR));
      assertThat(parked).noneMatch(p -> p.eventId().equals("good"));
    }
  }

  private static ParkedEvent find(List<ParkedEvent> parked, String eventId) {
    return parked.stream()
        .filter(p -> p.eventId().equals(eventId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no onParked for " + eventId + ": " + parked));
  }
}
