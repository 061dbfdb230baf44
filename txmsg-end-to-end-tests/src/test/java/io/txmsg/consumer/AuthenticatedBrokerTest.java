package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.await;
import static io.txmsg.consumer.ConsumerHarness.awaitDb;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.FaultInjectingDataSource;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Transports;
import io.txmsg.transport.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A separate embedded cluster with ACL 2.0 authentication and authorization on the broker
 * (remoting) and the proxy (gRPC). A normal user with only the rights the README lists (the cluster
 * denies the rest) takes every path: send, check-back, delivery confirmation, consume, parking, the
 * %DLQ% drain and the broker's give-up. With a wrong secret the producer and the consumers fail at
 * start, saying so, and nothing is written. Nothing logged in this JVM while the class runs
 * (standard output and error, where slf4j-simple writes, and what the RocketMQ clients append to
 * their own log files) contains the secret, the wrong one or a byte of a payload (every payload
 * carries a marker), although the run takes the faulty paths: a withheld commit, a permanent
 * failure parked, every delivery failing until the broker's %DLQ%.
 */
@DatabaseIndependent
class AuthenticatedBrokerTest {
  private static final String USER = "txmsg-acl";
  private static final String SECRET = "s3cret-" + UUID.randomUUID().toString().substring(0, 12);
  private static final String WRONG = "wr0ng-" + UUID.randomUUID().toString().substring(0, 12);

  /** In every payload this class sends: no log line may contain it (payloads are never logged). */
  private static final String PAYLOAD_MARK =
      "paymark-" + UUID.randomUUID().toString().substring(0, 12);

  private static final Duration WAIT = Duration.ofSeconds(40);

  private static EmbeddedRocketMQ mq;
  private static PrintStream originalOut;
  private static PrintStream originalErr;
  private static final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  /** The RocketMQ clients' own log files (gRPC, remoting) and their sizes when the class began. */
  private static final Map<Path, Long> clientLogs = new LinkedHashMap<>();

  @BeforeAll
  static void start() {
    originalOut = System.out;
    originalErr = System.err;
    System.setOut(tee(originalOut));
    System.setErr(tee(originalErr));
    Path logs = Paths.get(System.getProperty("user.home"), "logs");
    for (Path p :
        List.of(
            logs.resolve("rocketmq").resolve("rocketmq-client.log"),
            logs.resolve("rocketmqlogs").resolve("rocketmq_client.log"))) {
      clientLogs.put(p, size(p));
    }
    // Three unanswered check-backs and the broker gives up (the default 15 would take 17 s).
    mq = EmbeddedRocketMQ.builder().withAuthentication(USER, SECRET).transactionCheckMax(3).start();
  }

  @AfterAll
  static void stop() {
    try {
      if (mq != null) {
        mq.close();
      }
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
    String log;
    synchronized (captured) {
      log = captured.toString(StandardCharsets.UTF_8);
    }
    assertThat(log).as("log output of the whole class").isNotEmpty().doesNotContain(SECRET);
    assertThat(log).doesNotContain(WRONG).doesNotContain(PAYLOAD_MARK);
    for (Map.Entry<Path, Long> f : clientLogs.entrySet()) {
      String written = appended(f.getKey(), f.getValue());
      assertThat(written)
          .as("%s", f.getKey())
          .doesNotContain(SECRET)
          .doesNotContain(WRONG)
          .doesNotContain(PAYLOAD_MARK);
    }
  }

  private static long size(Path file) {
    try {
      return Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** What was appended to a log file since it had {@code from} bytes (all of it if rotated). */
  private static String appended(Path file, long from) {
    try {
      if (!Files.exists(file)) {
        return "";
      }
      byte[] all = Files.readAllBytes(file);
      int start = all.length >= from ? (int) from : 0;
      return new String(all, start, all.length - start, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static PrintStream tee(PrintStream original) {
    OutputStream both =
        new OutputStream() {
          @Override
          public void write(int b) {
            original.write(b);
            synchronized (captured) {
              captured.write(b);
            }
          }

          @Override
          public void write(byte[] b, int off, int len) {
            original.write(b, off, len);
            synchronized (captured) {
              captured.write(b, off, len);
            }
          }

          @Override
          public void flush() {
            original.flush();
          }
        };
    return new PrintStream(both, true, StandardCharsets.UTF_8);
  }

  /**
   * The rights the README's "Least-privilege ACL user" table lists, granted to a fresh normal user:
   * the cluster denies everything else. For a producer of store {@code store} publishing to {@code
   * topic}: publish to the topic and read its config; its confirm group; over remoting its give-up
   * group on the broker's give-up topic. For a consumer group on {@code topic}: subscribe, read the
   * group's config, and its %DLQ% drain group on its %DLQ% topic.
   */
  private static void grantDocumentedRights(
      String user, String topic, List<String> stores, String group) {
    mq.grant(user, "Topic:" + topic, "PUB", "SUB", "GET");
    for (String store : stores) {
      mq.grant(user, "Group:txmsg-confirm-" + store, "SUB");
      mq.grant(user, "Group:txmsg-giveup-" + store, "SUB");
    }
    mq.grant(user, "Topic:" + EmbeddedRocketMQ.GIVE_UP_TOPIC, "SUB");
    mq.grant(user, "Group:" + group, "SUB", "GET");
    mq.grant(user, "Topic:%DLQ%" + group, "SUB");
    mq.grant(user, "Group:txmsg-dlq-" + group, "SUB");
  }

  /**
   * Every path, taken by a normal user that has only the documented rights (the broker denies the
   * rest): send, check-back, delivery confirmation, consume, parking, the %DLQ% drain, and a
   * producer gone with its half message unanswered, which the store's next instance delivers (over
   * remoting once the broker gave up on it, through its give-up drain).
   */
  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void aUserWithOnlyTheDocumentedRightsTakesEveryPath(TestTransport transport) throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String topic = "acl-" + suffix;
    String group = "acl-points-" + suffix;
    String storeId = "acl-" + suffix;
    String goneStore = "acl-gone-" + suffix;
    String user = "app-" + suffix;
    String secret = "app-" + SECRET;
    mq.createTopic(topic, TopicType.TRANSACTION);
    mq.createConsumerGroup(group, 1, Duration.ofMillis(500), Duration.ofSeconds(1));
    // A plain connection's fresh group could start past a message sent before its first rebalance.
    mq.startGroupAtFirstMessage(group, topic);
    mq.createUser(user, secret);
    grantDocumentedRights(user, topic, List.of(storeId, goneStore), group);
    BrokerConnection connection = transport.connection(mq).withCredentials(user, secret);

    Map<String, Integer> applied = new ConcurrentHashMap<>();
    Map<String, Integer> retries = new ConcurrentHashMap<>();
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      FaultInjectingDataSource consumerDb = new FaultInjectingDataSource(db.dataSource());
      TxProducerSettings ps =
          new TxProducerSettings()
              .connection(connection)
              .topics(topic)
              .storeId(storeId)
              .autoCreateSchema(true);
      TxProducer.Builder pb =
          TxProducer.builder()
              .dataSource(db.dataSource())
              .settings(ps)
              .interceptor(
                  new ProducerInterceptor() {
                    @Override
                    public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
                      // the broker's check-back commits these
                      return !message.eventId().startsWith("checked-");
                    }
                  });
      EventHandler<Paid> handler =
          (event, ctx) -> {
            if (ctx.eventId().startsWith("bad-")) {
              throw new PermanentConsumeException("account closed");
            }
            ConsumerHarness.credit(ctx.connection(), group, ctx.eventId(), event);
            applied.merge(ctx.eventId(), 1, Integer::sum);
          };
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE points_credit (consumer_group VARCHAR(64) NOT NULL,"
                + " event_id VARCHAR(64) NOT NULL, account VARCHAR(64) NOT NULL,"
                + " amount INT NOT NULL)");
      }
      try (TxProducer producer = pb.build();
          TxConsumers consumers =
              TxConsumers.builder()
                  .dataSource(consumerDb)
                  .settings(
                      new TxConsumerSettings()
                          .connection(connection)
                          .dlqDrain(true, Duration.ofSeconds(1)))
                  .listener(
                      (g, type, id, outcome) -> {
                        if (outcome == ConsumeOutcome.RETRY) {
                          retries.merge(id, 1, Integer::sum);
                        }
                      })
                  .handler(
                      HandlerDefinition.of(group, topic, "PaymentSucceeded", Paid.class, handler))
                  .build()) {
        TxmsgStore store = TxmsgStore.detect(db.dataSource(), "txmsg_");
        Journal journal = new Journal(db.dataSource(), store);
        DeadLetters deadLetters = new DeadLetters(db.dataSource(), store);

        // send + commit + consume, then the delivery confirmation marks the row SENT
        String direct = "direct-" + suffix;
        producer.template().execute(message(topic, direct), ctx -> null);
        await("applied " + direct, WAIT, () -> applied.getOrDefault(direct, 0) >= 1);
        awaitDb(
            "SENT " + direct,
            WAIT,
            () -> journal(journal, direct).getStatus() == JournalStatus.SENT);

        // the commit is withheld: the broker's check-back resolves it
        String checked = "checked-" + suffix;
        producer.template().execute(message(topic, checked), ctx -> null);
        await("applied " + checked, WAIT, () -> applied.getOrDefault(checked, 0) >= 1);
        awaitDb(
            "SENT " + checked,
            WAIT,
            () -> journal(journal, checked).getStatus() == JournalStatus.SENT);

        // a permanent failure is parked
        String bad = "bad-" + suffix;
        producer.template().execute(message(topic, bad), ctx -> null);
        awaitDb("parked " + bad, WAIT, () -> !deadLetters(deadLetters, group, bad).isEmpty());
        assertThat(deadLetters(deadLetters, group, bad).get(0).getReason())
            .isEqualTo(ParkReason.PERMANENT_ERROR);

        // every delivery fails while the consumer's database is down: the broker moves the event
        // to %DLQ%, the drain parks it (BROKER_DLQ) once the database is back
        String dlq = "dlq-" + suffix;
        int attempts = consumers.brokerMaxAttempts(group);
        consumerDb.down(true);
        producer.template().execute(message(topic, dlq), ctx -> null);
        await(
            "every delivery of " + dlq + " failed",
            Duration.ofSeconds(60),
            () -> retries.getOrDefault(dlq, 0) >= attempts);
        ConsumerHarness.quiet(Duration.ofSeconds(2));
        consumerDb.down(false);
        awaitDb(
            dlq + " parked from %DLQ%",
            Duration.ofSeconds(60),
            () -> !deadLetters(deadLetters, group, dlq).isEmpty());
        assertThat(deadLetters(deadLetters, group, dlq).get(0).getReason())
            .isEqualTo(ParkReason.BROKER_DLQ);

        // a producer goes away with its half message uncommitted: nobody answers the broker's
        // check-backs (another store's group), and the store's next instance delivers the
        // committed row. Over remoting the broker gives up first and the next instance's give-up
        // drain delivers it (republishAfter is far off). Over gRPC, whose proxy cannot read the
        // give-up topic, the next instance starts at once and delivers it by its check-back answer
        // or its reconciler (republishAfter 2 s): in one CI run the broker had not given up on the
        // gRPC half message within 60 s (no check-back reached any client), unexplained so far.
        String abandoned = "abandoned-" + suffix;
        long givenUpBefore = mq.givenUp(topic);
        TxProducerSettings gone =
            new TxProducerSettings()
                .connection(connection)
                .topics(topic)
                .storeId(goneStore)
                .republishAfter(
                    transport == TestTransport.REMOTING
                        ? Duration.ofMinutes(10)
                        : Duration.ofSeconds(2));
        try (TxProducer first =
            TxProducer.builder()
                .dataSource(db.dataSource())
                .settings(gone)
                .interceptor(
                    new ProducerInterceptor() {
                      @Override
                      public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
                        return false;
                      }
                    })
                .build()) {
          first.template().execute(message(topic, abandoned), ctx -> null);
        }
        if (transport == TestTransport.REMOTING) {
          await(
              "the broker gave up on " + abandoned,
              Duration.ofSeconds(60),
              () -> mq.givenUp(topic) > givenUpBefore);
        }
        try (TxProducer next =
            TxProducer.builder().dataSource(db.dataSource()).settings(gone).build()) {
          await("applied " + abandoned, WAIT, () -> applied.getOrDefault(abandoned, 0) >= 1);
          if (transport == TestTransport.REMOTING) {
            assertThat(journal(journal, abandoned).getLastErrorCode())
                .as("the give-up drain claimed the row")
                .isEqualTo("BROKER_GAVE_UP");
          }
        }

        ConsumerHarness.quiet(Duration.ofSeconds(1));
        assertThat(applied).containsEntry(direct, 1).containsEntry(checked, 1);
        assertThat(applied).containsEntry(abandoned, 1);
        assertThat(applied).doesNotContainKeys(bad, dlq);
        assertThat(count(db, "SELECT COUNT(*) FROM points_credit")).isEqualTo(3);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void aWrongSecretFailsAtStartSayingSoAndWritesNothing(TestTransport transport) throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String topic = "acl-wrong-" + suffix;
    String group = "acl-wrong-points-" + suffix;
    mq.createTopic(topic, TopicType.TRANSACTION);
    mq.createConsumerGroup(group, 1, Duration.ofMillis(500), Duration.ofSeconds(1));
    BrokerConnection wrong = transport.connection(mq).withCredentials(USER, WRONG);
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      Throwable producerFailure = producerStartFailure(db, wrong, topic, "acl-wrong-" + suffix);
      assertRefused(producerFailure);
      assertThat(journalRows(db)).as("journal rows").isZero();

      Throwable consumerFailure =
          catchThrowable(
              () ->
                  TxConsumers.builder()
                      .dataSource(db.dataSource())
                      .settings(new TxConsumerSettings().connection(wrong))
                      .handler(
                          HandlerDefinition.of(
                              group, topic, "PaymentSucceeded", Paid.class, (event, ctx) -> {}))
                      .build()
                      .close());
      assertRefused(consumerFailure);
    }
  }

  /**
   * A user the broker knows but that has no right on the topic is refused at the producer's start,
   * before anything is written, with a message that names the access key and the resource it lacks
   * (over gRPC the proxy's UNAUTHORIZED is told apart from a wrong secret by its "no permission").
   */
  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void aUserWithoutRightsOnTheTopicIsRefusedAtStartNamingIt(TestTransport transport)
      throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String topic = "acl-norights-" + suffix;
    String user = "app-norights-" + suffix;
    String secret = "app-" + SECRET;
    mq.createTopic(topic, TopicType.TRANSACTION);
    mq.createUser(user, secret);
    // Its own groups only: nothing on the topic.
    mq.grant(user, "Group:txmsg-confirm-acl-norights-" + suffix, "SUB");
    BrokerConnection connection = transport.connection(mq).withCredentials(user, secret);
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      Throwable failure = producerStartFailure(db, connection, topic, "acl-norights-" + suffix);
      assertThat(failure).as("start without rights on the topic").isNotNull();
      assertThat(failure.getMessage())
          .as("message of %s", failure)
          .contains("authorization failed")
          .contains("access key '" + user + "'")
          .contains("Topic:" + topic)
          .doesNotContain(secret);
      assertThat(journalRows(db)).as("journal rows").isZero();
    }
  }

  /**
   * Over remoting a consumer group the broker would not let pull (no SUB on its group) is refused
   * at start, naming the access key and the group: the client itself only logs each refused pull,
   * and the group would receive nothing, silently.
   */
  @org.junit.jupiter.api.Test
  void aRemotingConsumerWithoutTheRightToPullIsRefusedAtStartNamingIt() throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String topic = "acl-nopull-" + suffix;
    String group = "acl-nopull-points-" + suffix;
    String user = "app-nopull-" + suffix;
    String secret = "app-" + SECRET;
    mq.createTopic(topic, TopicType.TRANSACTION);
    mq.createConsumerGroup(group, 1, Duration.ofMillis(500), Duration.ofSeconds(1));
    mq.createUser(user, secret);
    mq.grant(user, "Topic:" + topic, "PUB", "SUB", "GET");
    mq.grant(user, "Group:" + group, "GET"); // reads its config, may not pull
    BrokerConnection connection =
        TestTransport.REMOTING.connection(mq).withCredentials(user, secret);
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      Throwable failure =
          catchThrowable(
              () ->
                  TxConsumers.builder()
                      .dataSource(db.dataSource())
                      .settings(
                          new TxConsumerSettings().connection(connection).autoCreateSchema(true))
                      .handler(
                          HandlerDefinition.of(
                              group, topic, "PaymentSucceeded", Paid.class, (event, ctx) -> {}))
                      .build()
                      .close());
      assertThat(failure).as("a consumer start without the right to pull").isNotNull();
      StringBuilder messages = new StringBuilder();
      for (Throwable t = failure; t != null; t = t.getCause()) {
        messages.append(t.getMessage()).append('\n');
      }
      assertThat(messages.toString())
          .contains("authorization failed")
          .contains("access key '" + user + "'")
          .contains("Group:" + group)
          .doesNotContain(secret);
    }
  }

  /**
   * A %DLQ% drain whose user may not read the dead-letter topic, or may read it but not use the
   * drain group, is not silent: it reports which rights to grant (and logs it as an ERROR). Over
   * gRPC the client's push consumer starts in the second case and only the client's own log shows
   * its refused receives. Two users, each with its rights set before its first request: the proxy
   * caches a user's rights for up to a minute. The documented-rights test drains with both rights.
   */
  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void aDeadLetterDrainWithoutItsRightsNamesThem(TestTransport transport) throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String group = "acl-nodlq-" + suffix;
    String dlq = "%DLQ%" + group;
    String drainGroup = "txmsg-dlq-" + group;
    mq.createTopic(dlq, TopicType.NORMAL, 1);
    String none = "app-nodlq-" + suffix;
    String topicOnly = "app-dlqtopic-" + suffix;
    String secret = "app-" + SECRET;
    mq.createUser(none, secret);
    mq.createUser(topicOnly, secret);
    mq.grant(topicOnly, "Topic:" + dlq, "SUB");

    assertThat(drainProblem(transport, none, secret, group))
        .contains(dlq + " cannot be drained")
        .contains("access key '" + none + "'")
        .contains("Topic:" + dlq + " from")
        .contains("grant SUB on Topic:" + dlq + " and Group:" + drainGroup)
        .doesNotContain(secret);
    String groupRefused = drainProblem(transport, topicOnly, secret, group);
    assertThat(groupRefused)
        .contains(dlq + " cannot be drained")
        .contains("access key '" + topicOnly + "'")
        .contains("grant SUB on Topic:" + dlq + " and Group:" + drainGroup)
        .doesNotContain(secret);
    if (transport == TestTransport.REMOTING) {
      assertThat(groupRefused).contains("Group:" + drainGroup + " from"); // the broker's words
    } else {
      // the proxy's words are lost in the client (a cancelled settings exchange)
      assertThat(groupRefused).contains("authorization probably failed");
    }
  }

  /**
   * Over gRPC a producer whose user may not publish to its topic fails at start saying that
   * authorization probably failed and naming the access key: the proxy ends the client's settings
   * exchange and the client keeps only a cancelled future, not the proxy's reason.
   */
  @org.junit.jupiter.api.Test
  void aGrpcProducerWithoutTheRightToPublishIsRefusedAtStartNamingTheAccessKey() throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String topic = "acl-nopub-" + suffix;
    String storeId = "acl-nopub-" + suffix;
    String user = "app-nopub-" + suffix;
    String secret = "app-" + SECRET;
    mq.createTopic(topic, TopicType.TRANSACTION);
    mq.createUser(user, secret);
    mq.grant(user, "Topic:" + topic, "SUB", "GET");
    mq.grant(user, "Group:txmsg-confirm-" + storeId, "SUB");
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      Throwable failure =
          producerStartFailure(
              db, TestTransport.GRPC.connection(mq).withCredentials(user, secret), topic, storeId);
      assertThat(failure).as("a producer start without PUB").isNotNull();
      assertThat(failure.getMessage())
          .contains("authorization probably failed")
          .contains("access key '" + user + "'")
          .doesNotContain(secret);
    }
  }

  /** The problem a dead-letter drain of {@code group} reports when run as {@code user}. */
  private static String drainProblem(
      TestTransport transport, String user, String secret, String group) throws Exception {
    BrokerConnection connection = transport.connection(mq).withCredentials(user, secret);
    try (Transport t = Transports.open(connection);
        Subscription drain = t.drainDeadLetters(group, m -> Verdict.ACK, Duration.ofMillis(300))) {
      await("a problem reported by the drain as " + user, WAIT, () -> drain.problem().isPresent());
      return drain.problem().get();
    }
  }

  /** What starting (and closing) a producer of {@code storeId} on the connection threw, or null. */
  private static Throwable producerStartFailure(
      DatabaseFixture db, BrokerConnection connection, String topic, String storeId) {
    return catchThrowable(
        () ->
            TxProducer.builder()
                .dataSource(db.dataSource())
                .settings(
                    new TxProducerSettings()
                        .connection(connection)
                        .topics(topic)
                        .storeId(storeId)
                        .autoCreateSchema(true))
                .build()
                .close());
  }

  private static void assertRefused(Throwable failure) {
    assertThat(failure).as("start with a wrong secret").isNotNull();
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t).append('\n');
    }
    assertThat(failure.getMessage())
        .as("message of %s", failure)
        .containsIgnoringCase("authentication")
        .contains("access key '" + USER + "'");
    assertThat(messages.toString()).doesNotContain(WRONG).doesNotContain(SECRET);
  }

  private static TxMessage message(String topic, String id) {
    return TxMessage.builder()
        .eventId(id)
        .topic(topic)
        .eventType("PaymentSucceeded")
        .aggregate("Payment", id, 1)
        .payload(ConsumerHarness.paid(PAYLOAD_MARK, 1))
        .build();
  }

  private static JournalRow journal(Journal journal, String id) throws Exception {
    return journal.find(id);
  }

  private static List<DeadLetterRow> deadLetters(DeadLetters deadLetters, String group, String id)
      throws Exception {
    return deadLetters.findByEvent(group, id);
  }

  /** Rows in the journal; none when the failed start did not even create the table. */
  private static int journalRows(DatabaseFixture db) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        ResultSet tables = c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
      while (tables.next()) {
        if (tables.getString("TABLE_NAME").equalsIgnoreCase("txmsg_journal")) {
          return count(db, "SELECT COUNT(*) FROM txmsg_journal");
        }
      }
      return 0;
    }
  }

  private static int count(DatabaseFixture db, String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
