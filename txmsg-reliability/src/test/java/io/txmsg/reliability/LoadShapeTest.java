package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.DeliveryMode;
import io.txmsg.api.Envelope;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.message.MessageBuilder;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Several producers and consumer instances at once, a duplicate storm (every event republished
 * again and again), versions of one aggregate interleaved by two producers, and bad input mixed
 * into the stream.
 */
class LoadShapeTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  @ParameterizedTest
  @MethodSource(DB)
  void twoProducersTwoConsumerInstancesADuplicateStormAndInterleavedVersions(
      TestTransport transport, TestDatabase kind) throws Exception {
    stormAndInterleavedVersions(transport, kind, DeliveryMode.HALF_MESSAGE, "");
  }

  /** The same with OUTBOX producers: the storm's republishes are plain sends. */
  @ParameterizedTest
  @MethodSource(DB)
  void outboxTwoProducersTwoConsumerInstancesADuplicateStormAndInterleavedVersions(
      TestTransport transport, TestDatabase kind) throws Exception {
    stormAndInterleavedVersions(transport, kind, DeliveryMode.OUTBOX, " (OUTBOX)");
  }

  private static void stormAndInterleavedVersions(
      TestTransport transport, TestDatabase kind, DeliveryMode mode, String label)
      throws Exception {
    try (World w = new World(transport, kind, mode)) {
      w.consumers();
      w.consumers(); // a second instance of both groups
      int perProducer = Scale.pick(60, 600);
      // Even and odd facts from two JVMs: the versions of each aggregate interleave.
      Child p1 =
          w.producer(
              "p1",
              "start",
              "0",
              "count",
              Integer.toString(perProducer),
              "rate",
              "30",
              "stay",
              "true");
      Child p2 =
          w.producer(
              "p2",
              "start",
              "100000",
              "count",
              Integer.toString(perProducer),
              "rate",
              "30",
              "stay",
              "true");
      p1.await("DONE", Duration.ofSeconds(120));
      p2.await("DONE", Duration.ofSeconds(120));
      w.awaitClean(Duration.ofSeconds(60), 0);
      int storms = Scale.pick(2, 5);
      for (int i = 0; i < storms; i++) {
        // Every row back to RETRY and due: the reconcilers of both producers republish all.
        try (Connection c = w.dataSource.getConnection();
            Statement s = c.createStatement()) {
          s.executeUpdate("UPDATE txmsg_journal SET status = 'RETRY', next_retry_at = created_at");
        }
        w.fault(World.Fault.DATABASE);
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < until && w.check(0).stuck() > 0) {
          Thread.sleep(500);
        }
      }
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(90, 240)), 0);
      Report.row(
          "2 producers, 2 consumer instances, duplicate storm x" + storms + label, w, storms, v);
      assertThat(v.facts()).isEqualTo(2L * perProducer);
      assertThat(v.absorbed())
          .as("republished duplicates absorbed")
          .isGreaterThanOrEqualTo(2L * perProducer);
      assertThat(v.clean()).as(v.toString()).isTrue();
      // The storms were delivered by the two producers' reconcilers: every row republished once
      // per storm (at least: a lost lease is republished again).
      Child.Meters m1 = p1.meters();
      Child.Meters m2 = p2.meters();
      System.out.println("METERS " + m1 + " / " + m2);
      assertThat(m1.sum("txmsg.reconcile.republished") + m2.sum("txmsg.reconcile.republished"))
          .as("rows the reconcilers republished: " + m1 + " / " + m2)
          .isGreaterThanOrEqualTo((long) storms * 2L * perProducer);
      p1.kill();
      p2.kill();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void malformedAndOversizedMessagesUnderLoadAreParkedWhileTheRestFlows(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (World w = new World(transport, kind)) {
      w.consumers();
      Child load =
          w.producer(
              "load",
              "count",
              Integer.toString(Scale.pick(100, 1000)),
              "rate",
              "40",
              "stay",
              "true");
      int bad = Scale.pick(4, 20);
      try (Producer raw =
          ClientServiceProvider.loadService()
              .newProducerBuilder()
              .setClientConfiguration(
                  ClientConfiguration.newBuilder().setEndpoints(w.mq.grpcEndpoint()).build())
              // Check-backs reach every client that sent to the topic: answer only for our own
              // bad input, UNKNOWN (ask someone else, later) for everything else.
              .setTransactionChecker(
                  view ->
                      String.valueOf(view.getProperties().get(Envelope.EVENT_ID)).startsWith("bad-")
                          ? TransactionResolution.COMMIT
                          : TransactionResolution.UNKNOWN)
              .build()) {
        for (int i = 0; i < bad; i++) {
          // A TRANSACTION topic only takes transactional sends from this client: send + commit.
          byte[] body =
              i % 2 == 0
                  ? "not json at all".getBytes(StandardCharsets.UTF_8)
                  : filler(3 * 1024 * 1024); // oversized for the handler: 3 MiB of garbage
          MessageBuilder b =
              ClientServiceProvider.loadService()
                  .newMessageBuilder()
                  .setTopic(w.topic)
                  .setBody(body)
                  .addProperty(Envelope.EVENT_ID, "bad-" + i);
          if (i % 4 == 1) {
            b.addProperty(Envelope.EVENT_TYPE, "FactRecorded"); // still no hash, no aggregate
          }
          var tx = raw.beginTransaction();
          raw.send(b.build(), tx);
          tx.commit();
          Thread.sleep(200);
        }
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new AssertionError("raw producer could not send bad input: " + e, e);
      }
      load.await("DONE", Duration.ofSeconds(120));
      long expectedParked = 2L * bad; // each bad message, parked once per group
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(90, 240)), expectedParked);
      Report.row("bad input under load (" + bad + " malformed/oversized)", w, bad, v);
      assertThat(v.clean()).as(v.toString()).isTrue();
      try (Connection c = w.dataSource.getConnection();
          Statement s = c.createStatement();
          var rs =
              s.executeQuery(
                  "SELECT COUNT(*) FROM txmsg_dead_letter WHERE event_id LIKE 'bad-%'"
                      + " AND reason = 'MALFORMED_ENVELOPE'")) {
        rs.next();
        assertThat(rs.getLong(1)).isEqualTo(expectedParked);
      }
      load.kill();
    }
  }

  private static byte[] filler(int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) 'x');
    return b;
  }
}
