package io.txmsg.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.TransportException;
import io.txmsg.api.TxMessage;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What TxProducer.build() and execute() refuse before anything is sent or written. */
@DatabaseIndependent
class ProducerStartChecksTest {
  private static String topic() {
    return "chk-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static TxProducer.Builder builder(
      DatabaseFixture db, TestTransport.Open t, String topic) {
    return TxProducer.builder()
        .dataSource(db.dataSource())
        .transport(t.transport())
        .settings(new TxProducerSettings().topics(topic).autoCreateSchema(true));
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void aNormalTopicFailsTheBuildNamingTheTopicAndTheKindItNeeds(TestTransport kind)
      throws Exception {
    try (TestTransport.Open t = kind.open();
        DatabaseFixture db = TestDatabase.H2.open()) {
      String normal = topic();
      t.createTopic(normal, TopicType.NORMAL);
      assertThatThrownBy(() -> builder(db, t, normal).build())
          .isInstanceOf(InvalidSettingsException.class)
          .hasMessageContaining("'" + normal + "' is a NORMAL topic")
          .hasMessageContaining("need a TRANSACTION topic")
          .satisfies(e -> assertThat(((InvalidSettingsException) e).setting()).isEqualTo("topics"));

      String transactional = topic();
      t.createTopic(transactional, TopicType.TRANSACTION);
      try (TxProducer ok = builder(db, t, transactional).build()) {
        assertThat(ok.template()).isNotNull();
      }
    }
  }

  @Test
  void aTopicWhoseKindTheTransportCannotTellIsNotRefused() throws Exception {
    try (TestTransport.Open t = TestTransport.IN_MEMORY.open();
        DatabaseFixture db = TestDatabase.H2.open();
        TxProducer p = builder(db, t, topic()).build()) { // never declared: unknown
      assertThat(p.template()).isNotNull();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void aMissingTopicFailsTheBuildNamingItAndSayingNotFound(TestTransport kind) throws Exception {
    try (TestTransport.Open t = kind.open();
        DatabaseFixture db = TestDatabase.H2.open()) {
      String missing = topic();
      assertThatThrownBy(() -> builder(db, t, missing).build())
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("topic '" + missing + "' not found")
          // What the broker said is part of the message, but never a raw line break.
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\r"));
    }
  }

  /**
   * The way an application builds it: from connection settings, the producer opening (and, on
   * failure, closing) its own transport. Over remoting this used to take 3 s or more (a client
   * library shutdown waiting out a poll; RemotingTransport#requireTopics says why); the time is
   * measured by hand, this asserts what the caller gets.
   */
  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void aMissingTopicFailsTheBuildOfAProducerOpeningItsOwnTransport(TestTransport kind)
      throws Exception {
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      String missing = topic();
      TxProducerSettings settings =
          new TxProducerSettings()
              .connection(kind.connection(EmbeddedRocketMQ.shared()))
              .topics(missing)
              .autoCreateSchema(true);
      assertThatThrownBy(
              () -> TxProducer.builder().dataSource(db.dataSource()).settings(settings).build())
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("topic '" + missing + "' not found")
          .hasMessageContaining("create it first")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\r"));
    }
  }

  @Test
  void anEmptySanitizedPayloadIsRejectedBeforeAnySideEffect() throws Exception {
    try (TestTransport.Open t = TestTransport.IN_MEMORY.open();
        DatabaseFixture db = TestDatabase.H2.open()) {
      String topic = topic();
      t.createTopic(topic, TopicType.TRANSACTION);
      try (TxProducer p =
          builder(db, t, topic).sanitizer((message, payload) -> new byte[0]).build()) {
        TxMessage m =
            TxMessage.builder()
                .eventId("evt-empty")
                .topic(topic)
                .eventType("Paid")
                .aggregate("Order", "o-1", 1)
                .payloadObject(java.util.Map.of("a", 1))
                .build();
        assertThatThrownBy(() -> p.template().execute(m, ctx -> "ran"))
            .isInstanceOf(InvalidTxMessageException.class)
            .satisfies(
                e -> assertThat(((InvalidTxMessageException) e).field()).isEqualTo("payload"));
        assertThat(t.inMemory().openHalfMessages()).isZero();
        assertThat(t.inMemory().published()).isEmpty();
        assertThat(rows(db, "txmsg_attempt")).isZero();
        assertThat(rows(db, "txmsg_journal")).isZero();
      }
    }
  }

  private static int rows(DatabaseFixture db, String table) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
