package io.txmsg.producer;

import static io.txmsg.producer.ProducerHarness.await;
import static io.txmsg.producer.ProducerHarness.insertPayment;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.journal.JournalStatus;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The confirm group against the real embedded broker (H2: the logic is not dialect-specific). */
@DatabaseIndependent
class DeliveryConfirmerTest {

  /**
   * A store with a busy and an idle topic. A confirm consumer that round-robins its topics spends
   * most of its time long-polling the idle one (seconds per receive) and confirmed about 30 events
   * per second; one consumer per topic confirms the busy topic at its own pace.
   */
  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void anIdleTopicDoesNotHoldUpConfirmationOfABusyOne(TestTransport transport) throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    String idle = "idle-" + UUID.randomUUID().toString().substring(0, 8);
    mq.createTopic(idle, TopicType.TRANSACTION);
    try (ProducerHarness h =
        new ProducerHarness(
            TestDatabase.H2,
            transport.on(mq),
            s ->
                s.topics(s.topics().iterator().next(), idle)
                    .storeId("confirm-idle-" + transport.name().toLowerCase()))) {
      int events = 400;
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < events; i++) {
        String id = UUID.randomUUID().toString().substring(0, 12);
        ids.add(id);
        h.txmsg
            .template()
            .execute(
                h.message(id, i),
                ctx -> {
                  insertPayment(ctx.connection(), id, 1);
                  return null;
                });
      }
      // Far more than the fixed confirmer needs (well under a second on this machine) and far
      // less than the 13 s the round-robin one needed for 400 events.
      boolean allSent = await(Duration.ofSeconds(6), () -> notSent(h) == 0);
      assertThat(allSent)
          .as(
              "all %d rows SENT within 6 s of the last commit; still not SENT: %d",
              events, notSent(h))
          .isTrue();
      assertThat(ids)
          .allSatisfy(id -> assertThat(h.journalStatus("evt-" + id)).isEqualTo(JournalStatus.SENT));
    }
  }

  private static long notSent(ProducerHarness h) {
    try (Connection c = h.db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT COUNT(*) FROM txmsg_journal WHERE status <> 'SENT'")) {
      rs.next();
      return rs.getLong(1);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
