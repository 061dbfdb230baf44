package io.txmsg.producer;

import static io.txmsg.producer.ProducerHarness.await;
import static io.txmsg.producer.ProducerHarness.insertPayment;
import static io.txmsg.producer.ProducerHarness.pays;
import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.Envelope;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxResult;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * deliveryMode OUTBOX and ctx.publish (docs/architecture.md, "Producer: OUTBOX"): the immediate
 * send after commit, the reconciler for what was not sent, several events per transaction,
 * phantoms, idempotent retry.
 */
class OutboxTest {
  private static final String ALL = "io.txmsg.testkit.transport.TestTransport#withDatabases";
  private static final String REAL = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  /** An OUTBOX producer on a NORMAL topic; the reconciler picks unsent rows up after 1 s. */
  private static ProducerHarness outbox(
      TestTransport transport, TestDatabase kind, Consumer<TxProducerSettings> tweak)
      throws Exception {
    return outbox(transport.open(), kind, t -> t, tweak);
  }

  private static ProducerHarness outbox(
      TestTransport.Open open,
      TestDatabase kind,
      java.util.function.UnaryOperator<io.txmsg.transport.Transport> wrap,
      Consumer<TxProducerSettings> tweak)
      throws Exception {
    return new ProducerHarness(
        kind,
        open,
        TopicType.NORMAL,
        wrap,
        s -> {
          s.deliveryMode(DeliveryMode.OUTBOX)
              .publishAfter(Duration.ofSeconds(1))
              .reconcileInterval(Duration.ofMillis(200))
              .retryBackoff(Duration.ofMillis(300), Duration.ofSeconds(1));
          tweak.accept(s);
        });
  }

  private static TxMessage extra(String topic, String eventId, String aggregateId, long version) {
    return TxMessage.builder()
        .eventId(eventId)
        .topic(topic)
        .eventType("LedgerPosted")
        .aggregate("Ledger", aggregateId, version)
        .payload(("{\"e\":\"" + eventId + "\"}").getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /**
   * Waits until the broker has the observer group subscribed (a new remoting push group starting
   * after a message was stored may begin past it).
   */
  static void ready(TestTransport transport, String group, String topic) {
    if (transport != TestTransport.IN_MEMORY) {
      EmbeddedRocketMQ.shared().awaitSubscribed(group, topic, Duration.ofSeconds(30));
    }
  }

  static void ready(TestTransport transport, ProducerHarness h) {
    ready(transport, "observer-" + h.topic, h.topic);
  }

  /**
   * For a delivery timeout's message: where the topic's messages stand for the group on the broker
   * (stored or not; consumed by the group or not), so that a timeout tells a broker that never
   * stored the message from a consumer that did not fetch it.
   */
  static String queues(TestTransport transport, String topic, String group) {
    return transport == TestTransport.IN_MEMORY
        ? "in-memory broker"
        : topic
            + " queues for "
            + group
            + ": "
            + EmbeddedRocketMQ.shared().describeQueues(topic, group);
  }

  private static String id() {
    return UUID.randomUUID().toString().substring(0, 12);
  }

  @ParameterizedTest
  @MethodSource(ALL)
  void aCommittedEventIsSentOnceAtOnceAndMarkedSentWithoutAttemptRowOrHalfMessage(
      TestTransport transport, TestDatabase kind) throws Exception {
    // publishAfter at its default (5 s), not the class's 1 s: the reconciler may send a row whose
    // immediate send is still in flight once publishAfter has passed, a duplicate consumers
    // absorb, by design. On a loaded machine the commit, the send and the SENT record took more
    // than 1 s once; this test is about the path without that race.
    Duration publishAfter = Duration.ofSeconds(5);
    try (ProducerHarness h = outbox(transport, kind, s -> s.publishAfter(publishAfter))) {
      ready(transport, h);
      String id = id();
      TxResult<Object> r = h.txmsg.template().execute(h.message(id, 7), pays(id, 7));
      String eventId = "evt-" + id;
      assertThat(r.brokerAcknowledged()).as("SEND_OK of the immediate send").isTrue();
      assertThat(r.publishedEventIds()).isEmpty();
      assertThat(h.paymentExists(id)).isTrue();
      assertThat(await(DELIVERY, () -> h.journalStatus(eventId) == JournalStatus.SENT))
          .as("SENT by the batched SEND_OK record")
          .isTrue();
      JournalRow row = h.journal(eventId);
      assertThat(row.getPublishMode()).isEqualTo(PublishMode.SEND);
      assertThat(row.getMessageGroup()).as("a NORMAL topic has no group").isNull();
      assertThat(row.getAttemptId()).isEqualTo(r.attemptId());
      assertThat(h.attemptStatesOf(eventId)).as("OUTBOX writes no attempt row").isEmpty();
      assertThat(await(DELIVERY, () -> h.deliveryCount(eventId) >= 1)).isTrue();
      Thread.sleep(publishAfter.toMillis() + 1000); // past publishAfter: SENT is never sent again
      assertThat(h.deliveryCount(eventId)).isEqualTo(1);
      assertThat(h.deliveries.get(eventId)).containsExactly(r.attemptId());
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aProducerThatDiesAfterCommitBeforeTheSendIsDeliveredByTheReconciler(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h = outbox(transport, kind, s -> {})) {
      ready(transport, h);
      h.interceptor.delegate =
          new ProducerInterceptor() {
            @Override
            public boolean beforeSend(TxMessage message, String attemptId) {
              return false; // the process dies here: committed, never sent by this call
            }
          };
      String id = id();
      TxResult<Object> r = h.txmsg.template().execute(h.message(id, 3), pays(id, 3));
      String eventId = "evt-" + id;
      assertThat(r.brokerAcknowledged()).isFalse();
      assertThat(h.journalStatus(eventId)).isEqualTo(JournalStatus.PENDING);
      assertThat(await(DELIVERY, () -> h.deliveryCount(eventId) >= 1))
          .as("sent by the reconciler after publishAfter")
          .isTrue();
      assertThat(
              await(Duration.ofSeconds(10), () -> h.journalStatus(eventId) == JournalStatus.SENT))
          .isTrue();
      Thread.sleep(2000);
      assertThat(h.deliveryCount(eventId)).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aFailedSendGoesToRetryWithBackoffAndIsThenSent(TestTransport transport, TestDatabase kind)
      throws Exception {
    TestTransport.Open open = transport.open();
    FailingSends[] failing = {null};
    try (ProducerHarness h =
        outbox(
            open,
            kind,
            t -> failing[0] = new FailingSends(t),
            s -> s.publishAfter(Duration.ofMillis(500)))) {
      ready(transport, h);
      // The immediate send and the reconciler's first send fail; its second succeeds.
      failing[0].failNextSends.set(2);
      String id = id();
      TxResult<Object> r = h.txmsg.template().execute(h.message(id, 4), pays(id, 4));
      String eventId = "evt-" + id;
      assertThat(r.brokerAcknowledged()).isFalse();
      // A timeout names where the row stood (CI once waited 60 s here in vain): RETRY or PENDING
      // means the reconciler never sent it; SENT means the broker took it and the observer did
      // not see it.
      assertThat(await(DELIVERY, () -> h.deliveryCount(eventId) >= 1))
          .as(
              () -> {
                JournalRow j;
                try {
                  j = h.journal(eventId);
                } catch (Exception e) {
                  return eventId + " not delivered; its journal row could not be read: " + e;
                }
                return eventId
                    + " not delivered; sends failed "
                    + failing[0].failed.get()
                    + ", journal status="
                    + j.getStatus()
                    + " retries="
                    + j.getRetryCount()
                    + " lastError="
                    + j.getLastErrorCode()
                    + " brokerMessageId="
                    + j.getBrokerMessageId()
                    + "; "
                    + queues(transport, h.topic, "observer-" + h.topic);
              })
          .isTrue();
      assertThat(
              await(Duration.ofSeconds(10), () -> h.journalStatus(eventId) == JournalStatus.SENT))
          .isTrue();
      JournalRow row = h.journal(eventId);
      assertThat(failing[0].failed.get()).isEqualTo(2);
      assertThat(row.getRetryCount()).as("went through RETRY").isEqualTo(1);
      assertThat(row.getLastErrorCode()).isEqualTo("UNAVAILABLE");
      Thread.sleep(1500);
      assertThat(h.deliveryCount(eventId)).isEqualTo(1);
    }
  }

  /**
   * Several events per transaction, in both modes: all delivered after commit; none when the action
   * throws after publishing them (phantom check: nothing is sent before commit, and a rolled-back
   * transaction leaves no row to send); a retry of the command does not run the action again and
   * names the events that exist.
   */
  @ParameterizedTest
  @MethodSource(ALL)
  void severalEventsPerTransactionAllDeliveredNoneOnRollbackAndARetryNamesThem(
      TestTransport transport, TestDatabase kind) throws Exception {
    for (DeliveryMode mode : DeliveryMode.values()) {
      severalEvents(transport, kind, mode);
    }
  }

  private static void severalEvents(TestTransport transport, TestDatabase kind, DeliveryMode mode)
      throws Exception {
    TestTransport.Open open = transport.open();
    String ledger = "ledger-" + id().substring(0, 8);
    open.createTopic(ledger, TopicType.NORMAL);
    Consumer<TxProducerSettings> settings =
        s ->
            s.publishTopics(ledger)
                .publishAfter(Duration.ofSeconds(1))
                .reconcileInterval(Duration.ofMillis(200));
    try (ProducerHarness h =
        mode == DeliveryMode.OUTBOX
            ? outbox(open, kind, t -> t, settings)
            : new ProducerHarness(kind, open, settings)) {
      Map<String, List<String>> seen = new ConcurrentHashMap<>();
      try (Subscription sub =
          open.transport()
              .subscribe(
                  new SubscriptionSpec("obs-" + ledger, Map.of(ledger, "*"), 4),
                  m -> {
                    seen.computeIfAbsent(
                            m.properties().get(Envelope.EVENT_ID),
                            k -> new CopyOnWriteArrayList<>())
                        .add(m.properties().get(Envelope.ATTEMPT_ID));
                    return Verdict.ACK;
                  })) {
        ready(transport, h);
        ready(transport, "obs-" + ledger, ledger);
        String id = id();
        AtomicInteger runs = new AtomicInteger();
        TxResult<Object> r =
            h.txmsg
                .template()
                .execute(
                    h.message(id, 10),
                    ctx -> {
                      runs.incrementAndGet();
                      insertPayment(ctx.connection(), id, 10);
                      ctx.publish(
                          extra(ledger, "led-a-" + id, id, 1), extra(ledger, "led-b-" + id, id, 2));
                      ctx.publish(extra(ledger, "led-c-" + id, id, 3));
                      return null;
                    });
        List<String> extras = List.of("led-a-" + id, "led-b-" + id, "led-c-" + id);
        assertThat(r.publishedEventIds()).containsExactlyElementsOf(extras);
        for (String e : extras) {
          JournalRow row = h.journal(e);
          assertThat(row.getPublishMode()).isEqualTo(PublishMode.SEND);
          assertThat(row.getAttemptId()).isEqualTo(r.attemptId());
        }
        String primary = "evt-" + id;
        // DELIVERY, not less: on a loaded CI machine a remoting delivery once took longer than
        // 30 s here. A timeout names what was missing and where each row stood.
        assertThat(
                await(
                    DELIVERY,
                    () ->
                        h.deliveryCount(primary) >= 1
                            && extras.stream().allMatch(seen::containsKey)))
            .as(
                () ->
                    mode
                        + ": the event and the three published ones are delivered; "
                        + primary
                        + " delivered "
                        + h.deliveryCount(primary)
                        + " time(s), journal "
                        + h.journalStatus(primary)
                        + "; published ones seen "
                        + seen.keySet()
                        + ", journal "
                        + extras.stream().map(e -> e + "=" + h.journalStatus(e)).toList()
                        + "; "
                        + queues(transport, h.topic, "observer-" + h.topic)
                        + "; "
                        + queues(transport, ledger, "obs-" + ledger))
            .isTrue();
        // HALF_MESSAGE + CONSUMER: the confirm group confirms the published events too.
        assertThat(
                await(
                    DELIVERY,
                    () -> extras.stream().allMatch(e -> h.journalStatus(e) == JournalStatus.SENT)))
            .as(
                () ->
                    mode
                        + ": the published ones are SENT; journal "
                        + extras.stream().map(e -> e + "=" + h.journalStatus(e)).toList())
            .isTrue();

        // Idempotent retry of the whole command: the action does not run again.
        TxResult<Object> again = h.txmsg.template().execute(h.message(id, 10), pays(id, 10));
        assertThat(again.alreadyCommitted()).isTrue();
        assertThat(again.publishedEventIds()).containsExactlyElementsOf(extras);
        assertThat(runs.get()).isEqualTo(1);

        // Rolled back after publishing: no row, never delivered.
        String failed = id();
        assertThatThrownBy(
                () ->
                    h.txmsg
                        .template()
                        .execute(
                            h.message(failed, 1),
                            ctx -> {
                              insertPayment(ctx.connection(), failed, 1);
                              ctx.publish(extra(ledger, "led-x-" + failed, failed, 1));
                              throw new IllegalStateException("business rule says no");
                            }))
            .isInstanceOf(IllegalStateException.class);
        Thread.sleep(3000); // well past publishAfter and several reconciler rounds
        assertThat(h.journal("led-x-" + failed)).isNull();
        assertThat(h.journal("evt-" + failed)).isNull();
        assertThat(seen).doesNotContainKey("led-x-" + failed);
        assertThat(h.deliveryCount("evt-" + failed)).isZero();
        assertThat(h.paymentExists(failed)).isFalse();
      }
    }
  }

  @ParameterizedTest
  @MethodSource(ALL)
  void aSwallowedDuplicatePublishFailsTheExecuteAndCommitsNothing(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h = outbox(transport, kind, s -> {})) {
      String first = id();
      h.txmsg
          .template()
          .execute(
              h.message(first, 1),
              ctx -> {
                ctx.publish(extra(h.topic, "dup-" + first, first, 1));
                return null;
              });
      String second = id();
      assertThatThrownBy(
              () ->
                  h.txmsg
                      .template()
                      .execute(
                          h.message(second, 1),
                          ctx -> {
                            insertPayment(ctx.connection(), second, 1);
                            try {
                              ctx.publish(extra(h.topic, "dup-" + first, first, 1));
                            } catch (RuntimeException swallowed) {
                              // the action carries on as if nothing happened
                            }
                            return null;
                          }))
          .isInstanceOf(io.txmsg.api.TransactionRolledBackException.class);
      assertThat(h.paymentExists(second)).isFalse();
      assertThat(h.journal("evt-" + second)).isNull();
    }
  }

  @ParameterizedTest
  @MethodSource(ALL)
  void wrongTopicKindsAndAFifoHalfMessageAreRefusedBeforeAnySideEffect(
      TestTransport transport, TestDatabase kind) throws Exception {
    // OUTBOX on a TRANSACTION topic: refused at build where the transport can tell.
    try (TestTransport.Open open = transport.open()) {
      assertThatThrownBy(
              () ->
                  new ProducerHarness(kind, open, s -> s.deliveryMode(DeliveryMode.OUTBOX)).close())
          .isInstanceOf(InvalidSettingsException.class)
          .hasMessageContaining("NORMAL or FIFO");
    }
    // Confirmation modes belong to one delivery mode each.
    assertThatThrownBy(
            () ->
                new TxProducerSettings()
                    .topics("t")
                    .deliveryMode(DeliveryMode.OUTBOX)
                    .confirmation(DeliveryConfirmation.PROXY_ACK)
                    .validate())
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("confirmation");
    assertThat(
            new TxProducerSettings().topics("t").deliveryMode(DeliveryMode.OUTBOX).confirmation())
        .isEqualTo(DeliveryConfirmation.SEND_OK);
    // A half message cannot be FIFO.
    try (ProducerHarness h = new ProducerHarness(kind, transport.open(), s -> {})) {
      String id = id();
      TxMessage fifo = h.message(id, 1).toBuilder().messageGroup("g").build();
      assertThatThrownBy(() -> h.txmsg.template().execute(fifo, pays(id, 1)))
          .isInstanceOf(InvalidTxMessageException.class)
          .hasMessageContaining("messageGroup");
      assertThat(h.paymentExists(id)).isFalse();
    }
  }

  /**
   * A store that switches modes strands nothing: each row is republished the way it records. A
   * HALF_MESSAGE row whose half message was never committed is republished (half + commit) by the
   * store's producer now in OUTBOX mode; a SEND row never sent is sent (plain) by a HALF_MESSAGE
   * producer of the same store, whose confirm group then confirms it. Check-backs answer UNKNOWN
   * here, so only the reconciler can deliver.
   */
  @ParameterizedTest
  @MethodSource(REAL)
  void afterAModeSwitchEachRowIsStillRepublishedItsOwnWay(
      TestTransport transport, TestDatabase kind) throws Exception {
    TestTransport.Open open = transport.open();
    String normal = "plain-" + id().substring(0, 8);
    open.createTopic(normal, TopicType.NORMAL);
    ReconcilerTest.Unreachable unknown = new ReconcilerTest.Unreachable();
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            open,
            s ->
                s.publishTopics(normal)
                    .republishAfter(Duration.ofSeconds(2))
                    .reconcilerEnabled(false),
            unknown)) {
      Map<String, Integer> seenOnNormal = new ConcurrentHashMap<>();
      try (Subscription sub =
              open.transport()
                  .subscribe(
                      new SubscriptionSpec("obs-" + normal, Map.of(normal, "*"), 4),
                      m -> {
                        seenOnNormal.merge(m.properties().get(Envelope.EVENT_ID), 1, Integer::sum);
                        return Verdict.ACK;
                      });
          TxProducer outboxOfTheSameStore =
              TxProducer.builder()
                  .dataSource(h.db.dataSource())
                  .transport(open.transport())
                  .resolver(unknown)
                  .interceptor(
                      new ProducerInterceptor() {
                        @Override
                        public boolean beforeSend(TxMessage message, String attemptId) {
                          return false;
                        }
                      })
                  .settings(
                      new TxProducerSettings()
                          .storeId(h.storeId)
                          .topics(normal)
                          .deliveryMode(DeliveryMode.OUTBOX)
                          .publishAfter(Duration.ofSeconds(1))
                          .reconcilerEnabled(false))
                  .build()) {
        ready(transport, h);
        ready(transport, "obs-" + normal, normal);
        // A HALF_MESSAGE row whose half message is never committed (the producer "dies").
        h.interceptor.delegate =
            new ProducerInterceptor() {
              @Override
              public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
                return false;
              }
            };
        String half = id();
        h.txmsg.template().execute(h.message(half, 1), pays(half, 1));
        assertThat(h.journal("evt-" + half).getPublishMode()).isEqualTo(PublishMode.HALF_MESSAGE);
        Thread.sleep(2500); // past the row's republishAfter
        assertThat(outboxOfTheSameStore.reconciler().runOnce().republished())
            .as("the OUTBOX producer republishes the HALF_MESSAGE row")
            .isEqualTo(1);
        assertThat(await(DELIVERY, () -> h.deliveryCount("evt-" + half) >= 1)).isTrue();
        assertThat(h.journalStatus("evt-" + half))
            .as("SEND_OK confirmation")
            .isEqualTo(JournalStatus.SENT);

        // A SEND row written in OUTBOX mode and never sent.
        String send = id();
        TxMessage m = h.message(send, 2).toBuilder().eventId("out-" + send).topic(normal).build();
        outboxOfTheSameStore.template().execute(m, pays(send, 2));
        assertThat(h.journal("out-" + send).getPublishMode()).isEqualTo(PublishMode.SEND);
        Thread.sleep(1500); // past publishAfter
        assertThat(h.txmsg.reconciler().runOnce().republished())
            .as("the HALF_MESSAGE producer sends the SEND row")
            .isEqualTo(1);
        assertThat(await(DELIVERY, () -> seenOnNormal.containsKey("out-" + send))).isTrue();
        assertThat(await(DELIVERY, () -> h.journalStatus("out-" + send) == JournalStatus.SENT))
            .as("confirmed by the HALF_MESSAGE store's confirm group (publishTopics)")
            .isTrue();
      }
    }
  }
}
