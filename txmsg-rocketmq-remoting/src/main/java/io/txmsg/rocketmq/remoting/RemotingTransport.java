package io.txmsg.rocketmq.remoting;

import io.txmsg.api.LogSafe;
import io.txmsg.api.Resolution;
import io.txmsg.api.TransportException;
import io.txmsg.transport.BatchHandler;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Transport;
import java.text.SimpleDateFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientManager;
import org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.ServiceState;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport port over the remoting protocol (rocketmq-client) straight to the brokers found
 * through the NameServer: RocketMQ 4.x brokers and 5.x brokers without a proxy. Selected by {@link
 * BrokerConnection#nameServer(String)}.
 *
 * <p>Groups: the producer group is {@code txmsg-<storeId>} on every instance of a store
 * (check-backs are routed by producer group); the confirm group is the {@link
 * ConfirmationSpec#group()}; the dead-letter drain of group G is {@code txmsg-dlq-G}; the give-up
 * drain of a store is {@code txmsg-giveup-<storeId>}. See docs/facts.md, "Remoting transport in
 * detail".
 */
public final class RemotingTransport implements Transport {
  private static final Logger log = LoggerFactory.getLogger(RemotingTransport.class);

  /** How often drains of lazily created topics re-read the route (the client's default is 30 s). */
  private static final int DRAIN_ROUTE_POLL_MILLIS = 5000;

  private static final int DRAIN_MAX_RECONSUME_TIMES = 1000;

  private static final int SETTLE_ROUNDS = 20;
  private static final long SETTLE_DELAY_MILLIS = 500;

  private final BrokerConnection connection;
  private final RemotingClients clients;
  private final RemotingAdmin admin;
  private final ScheduledExecutorService retries =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "txmsg-remoting-retry");
            t.setDaemon(true);
            return t;
          });

  public RemotingTransport(BrokerConnection connection) {
    connection.validate();
    if (connection.nameServer() == null) {
      throw new IllegalArgumentException("the remoting transport needs NameServer addresses");
    }
    this.connection = connection;
    this.clients = new RemotingClients(connection);
    this.admin = new RemotingAdmin(clients);
  }

  /** The producer group of a store: the same on every instance, so any of them answers. */
  public static String producerGroup(String storeId) {
    return "txmsg-" + storeId;
  }

  /** The consumer group that drains a store's given-up half messages. */
  public static String giveUpGroup(String storeId) {
    return "txmsg-giveup-" + storeId;
  }

  @Override
  public String name() {
    return "remoting";
  }

  @Override
  public ProducerChannel openProducer(ProducerSpec spec) {
    String group = producerGroup(spec.storeId());
    requireTopics(group, spec.topics());
    TransactionMQProducer producer =
        clients.configure(
            new TransactionMQProducer(group, clients.rpcHook(), new ArrayList<>(spec.topics())),
            "producer");
    producer.setSendMsgTimeout(clients.timeoutMillis());
    // The client's default of 2 resends (on another broker where there is one) for busy or
    // unreachable brokers, as the gRPC client's own send retries: a half message sent twice is
    // settled per attempt by the check-back, a plain message sent twice is dropped by consumers'
    // dedup. What still fails reaches txmsg (the caller, or the reconciler's backoff).
    producer.setRetryTimesWhenSendFailed(2);
    producer.setTransactionListener(new CheckbackListener(spec));
    try {
      producer.start();
      registerWithBrokers(producer, spec.topics());
      return new RemotingProducerChannel(producer, group, spec.topics(), admin);
    } catch (Exception e) {
      producer.shutdown();
      throw startFailure(group, spec.topics(), e);
    }
  }

  /**
   * Fails when a topic is missing, before any producer client exists. The order matters for time,
   * not for correctness: {@code NettyRemotingClient.shutdown} (rocketmq-client 5.4.0) joins the
   * client's connection-event thread, which polls its queue with a 3 s timeout and wakes early only
   * for an event such as a connection closing. A producer shut down before it had opened a
   * connection therefore waited up to 3 s, so starting it and then finding a topic missing made
   * this failure take 3 s or more (over 6 s at a cold start). The route is read through the
   * transport's admin client, which asks a NameServer that does not answer again (a transient
   * failure) and learns of a missing topic from the first answer.
   */
  private void requireTopics(String group, Set<String> topics) {
    for (String topic : new TreeSet<>(topics)) {
      boolean exists;
      try {
        exists = admin.topic(topic).exists();
      } catch (Exception e) {
        throw startFailure(group, topics, e);
      }
      if (!exists) {
        throw new TransportException(
            "producer could not start at "
                + connection.nameServer()
                + ": topic "
                + LogSafe.quote(topic)
                + " not found (create it first: a TRANSACTION topic for half messages, NORMAL or"
                + " FIFO for plain sends)",
            null);
      }
    }
  }

  private TransportException startFailure(String group, Set<String> topics, Exception e) {
    return new TransportException(
        "producer group "
            + group
            + " for topics "
            + topics
            + " could not start at "
            + connection.nameServer()
            + ": "
            + RemotingErrors.said(e.getMessage()),
        e);
  }

  /** Answers the broker's check-backs through the store's handler; UNKNOWN on any failure. */
  private static final class CheckbackListener implements TransactionListener {
    private final ProducerSpec spec;

    CheckbackListener(ProducerSpec spec) {
      this.spec = spec;
    }

    @Override
    public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
      // Never called: txmsg sends the half message itself and commits with endTransaction.
      return LocalTransactionState.UNKNOW;
    }

    @Override
    public LocalTransactionState checkLocalTransaction(MessageExt msg) {
      InboundMessage m = RemotingMessages.toInbound(msg, 0);
      try {
        Resolution r = spec.checkbackHandler().check(m);
        if (r == Resolution.COMMIT) {
          return LocalTransactionState.COMMIT_MESSAGE;
        }
        if (r == Resolution.ROLLBACK) {
          return LocalTransactionState.ROLLBACK_MESSAGE;
        }
        return LocalTransactionState.UNKNOW;
      } catch (RuntimeException | Error e) {
        log.warn("check-back failed messageId={}: {} → UNKNOWN", m.messageId(), e.toString());
        return LocalTransactionState.UNKNOW;
      }
    }
  }

  /**
   * The broker checks a half message back through a channel of the producer group, which it knows
   * from the group's heartbeat. {@code start()} fetches the declared topics' routes and then
   * heartbeats, but only to brokers whose route it got: a NameServer lookup that timed out there
   * leaves the group unknown to the broker until the next heartbeat, 30 s later, and check-backs
   * meanwhile find no channel (counted all the same, so a broker with short check intervals gives
   * up). Fetch the routes again and heartbeat once more before the first half message.
   */
  private static void registerWithBrokers(TransactionMQProducer producer, Set<String> topics) {
    MQClientInstance client = producer.getDefaultMQProducerImpl().getMqClientFactory();
    for (String topic : topics) {
      client.updateTopicRouteInfoFromNameServer(topic);
    }
    if (!client.sendHeartbeatToAllBrokerWithLock()) {
      log.warn(
          "producer group {} could not heartbeat to its brokers at start; check-backs may wait for"
              + " the client's next heartbeat (30 s)",
          producer.getProducerGroup());
    }
  }

  @Override
  public Subscription subscribe(SubscriptionSpec spec, DeliveryHandler handler) {
    DefaultMQPushConsumer consumer = pushConsumer(spec.group(), "consumer");
    consumer.setConsumeThreadMin(spec.threads());
    consumer.setConsumeThreadMax(spec.threads());
    consumer.setConsumeMessageBatchMaxSize(1);
    // The group's retry count and order live on the broker (as for gRPC); over remoting the client
    // carries the retry count in every send-back and chooses the listener, so read them once here.
    // 16 retries is rocketmq-client's default.
    String anyTopic = spec.tagsByTopic().keySet().iterator().next();
    Optional<SubscriptionGroupConfig> group = admin.groupConfig(spec.group(), anyTopic);
    for (String topic : spec.tagsByTopic().keySet()) {
      admin.requireSubscribable(spec.group(), topic);
    }
    consumer.setMaxReconsumeTimes(group.map(SubscriptionGroupConfig::getRetryMaxTimes).orElse(16));
    boolean orderly = group.map(SubscriptionGroupConfig::isConsumeMessageOrderly).orElse(false);
    RemotingPushSubscription subscription = new RemotingPushSubscription(consumer, handler);
    try {
      for (Map.Entry<String, String> e : spec.tagsByTopic().entrySet()) {
        consumer.subscribe(e.getKey(), e.getValue());
      }
      if (orderly) {
        // FIFO: one queue (so one message group) at a time, in queue order; a RETRY suspends the
        // queue and redelivers the same message locally.
        consumer.registerMessageListener(subscription.orderly());
      } else {
        consumer.registerMessageListener(subscription);
      }
      consumer.start();
      settleAfterStart(consumer, 1);
      return subscription;
    } catch (MQClientException | RuntimeException e) {
      // A RuntimeException too: start() throws IllegalStateException when no NameServer answers.
      consumer.shutdown();
      throw new TransportException(
          "consumer group "
              + spec.group()
              + " could not subscribe "
              + spec.tagsByTopic().keySet()
              + " at "
              + connection.nameServer()
              + ": "
              + RemotingErrors.said(
                  e instanceof MQClientException m ? m.getErrorMessage() : e.getMessage()),
          e);
    }
  }

  /**
   * Shortens a new consumer's start. The broker creates {@code %RETRY%<group>} when the group's
   * first heartbeat arrives, which {@code start()} sends after it looked the topics' routes up, so
   * the client learns the retry route only with its next NameServer poll (30 s) and pulls it with
   * the rebalance after that (20 s): a new group's first redeliveries came up to 50 s late. And the
   * first rebalance assigns nothing when the broker has not yet listed the new consumer (or a route
   * lookup timed out): its first queues then wait for the next rebalance, 20 s later (CI saw a new
   * group's first message arrive after 30 s). So, every half second for a few seconds after start:
   * look up the routes still missing, heartbeat while a subscribed topic has no queue assigned, and
   * rebalance, until the retry route is known and every subscribed topic has a queue.
   */
  private void settleAfterStart(DefaultMQPushConsumer consumer, int attempt) {
    retries.schedule(
        () -> {
          try {
            if (settled(consumer)) {
              return;
            }
            if (attempt < SETTLE_ROUNDS) {
              settleAfterStart(consumer, attempt + 1);
            } else {
              log.warn(
                  "consumer group {}: a route or a queue still missing {} after start (normal"
                      + " when the group has more consumers than queues); the client's own"
                      + " NameServer poll and rebalance take over",
                  consumer.getConsumerGroup(),
                  Duration.ofMillis(SETTLE_ROUNDS * SETTLE_DELAY_MILLIS));
            }
          } catch (RuntimeException e) {
            log.warn(
                "settling consumer group {} failed: {}", consumer.getConsumerGroup(), e.toString());
            if (attempt < SETTLE_ROUNDS) {
              settleAfterStart(consumer, attempt + 1); // a NameServer hiccup: try the next round
            }
          }
        },
        SETTLE_DELAY_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  /** One settling round; true when nothing is missing any more (or the consumer is gone). */
  private static boolean settled(DefaultMQPushConsumer consumer) {
    DefaultMQPushConsumerImpl impl = consumer.getDefaultMQPushConsumerImpl();
    MQClientInstance client = impl.getmQClientFactory();
    if (client == null || impl.getServiceState() != ServiceState.RUNNING) {
      return true; // shut down meanwhile
    }
    String retryTopic = MixAll.getRetryTopic(consumer.getConsumerGroup());
    boolean retryKnown = client.getTopicRouteTable().containsKey(retryTopic);
    if (!retryKnown) {
      client.updateTopicRouteInfoFromNameServer(retryTopic);
      retryKnown = client.getTopicRouteTable().containsKey(retryTopic);
    }
    Set<String> assigned =
        impl.getRebalanceImpl().getProcessQueueTable().keySet().stream()
            .map(MessageQueue::getTopic)
            .collect(Collectors.toSet());
    boolean unassigned = false;
    for (String topic : impl.getSubscriptionInner().keySet()) {
      if (!topic.equals(retryTopic) && !assigned.contains(topic)) {
        unassigned = true;
        client.updateTopicRouteInfoFromNameServer(topic);
      }
    }
    if (unassigned) {
      client.sendHeartbeatToAllBrokerWithLock(); // the broker must list us before we get queues
    }
    client.rebalanceImmediately();
    return retryKnown && !unassigned;
  }

  @Override
  public Subscription confirmDeliveries(ConfirmationSpec spec, BatchHandler handler) {
    DefaultLitePullConsumer consumer =
        clients.configure(new DefaultLitePullConsumer(spec.group(), clients.rpcHook()), "confirm");
    consumer.setMessageModel(MessageModel.CLUSTERING);
    consumer.setAutoCommit(false);
    consumer.setPullBatchSize(Math.min(32, Math.max(1, spec.batchSize())));
    consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_TIMESTAMP);
    consumer.setConsumeTimestamp(
        new SimpleDateFormat("yyyyMMddHHmmss")
            .format(new Date(System.currentTimeMillis() - Duration.ofHours(1).toMillis())));
    try {
      for (String topic : spec.topics()) {
        consumer.subscribe(topic, "*");
      }
      consumer.start();
      // A lite pull consumer does not rebalance at start (a push consumer does): without this its
      // first queues arrive with the rebalance service's next round, up to 20 s later.
      MQClientManager.getInstance()
          .getOrCreateMQClientInstance(consumer, clients.rpcHook())
          .rebalanceImmediately();
    } catch (MQClientException | RuntimeException e) {
      // A RuntimeException too: start() throws IllegalStateException when no NameServer answers.
      consumer.shutdown();
      throw new TransportException(
          "confirm group "
              + spec.group()
              + " could not subscribe "
              + spec.topics()
              + " at "
              + connection.nameServer()
              + ": "
              + RemotingErrors.said(
                  e instanceof MQClientException m ? m.getErrorMessage() : e.getMessage()),
          e);
    }
    RemotingConfirmationSource source = new RemotingConfirmationSource(spec, handler, consumer);
    source.start();
    return source;
  }

  @Override
  public Subscription drainDeadLetters(String group, DeliveryHandler handler, Duration retry) {
    String drainGroup = "txmsg-dlq-" + group;
    RemotingTopicDrain drain =
        new RemotingTopicDrain(
            "%DLQ%" + group,
            drainGroup,
            admin,
            () -> drainConsumer(drainGroup),
            handler,
            connection.nameServer());
    drain.start(retries, retry);
    return drain;
  }

  /**
   * Drains {@code TRANS_CHECK_MAX_TIME_TOPIC} with the store's give-up group. The topic holds every
   * store's given-up messages: the handler leaves other stores' alone. A given-up half message can
   * no longer be committed by a check-back, so republishing it cannot race one.
   */
  @Override
  public Optional<Subscription> drainGivenUp(
      String storeId, DeliveryHandler handler, Duration retry) {
    String drainGroup = giveUpGroup(storeId);
    RemotingTopicDrain drain =
        new RemotingTopicDrain(
            TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
            drainGroup,
            admin,
            () -> drainConsumer(drainGroup),
            handler,
            connection.nameServer());
    drain.start(retries, retry);
    return Optional.of(drain);
  }

  private DefaultMQPushConsumer drainConsumer(String group) {
    DefaultMQPushConsumer c = pushConsumer(group, "drain");
    c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
    c.setConsumeThreadMin(1);
    c.setConsumeThreadMax(1);
    c.setConsumeMessageBatchMaxSize(1);
    c.setPollNameServerInterval(DRAIN_ROUTE_POLL_MILLIS);
    // A dead-lettered message keeps its reconsume count (the group's maximum), and the broker
    // dead-letters a sent-back message whose count reached the consumer's maxReconsumeTimes: with
    // the default, a drain's RETRY would move it at once to %DLQ%<drain group>, which nothing
    // reads. The drain retries in-process first (DlqDrain); this keeps the broker's retry open.
    c.setMaxReconsumeTimes(DRAIN_MAX_RECONSUME_TIMES);
    return c;
  }

  private DefaultMQPushConsumer pushConsumer(String group, String role) {
    DefaultMQPushConsumer c =
        clients.configure(new DefaultMQPushConsumer(group, clients.rpcHook()), role);
    c.setMessageModel(MessageModel.CLUSTERING);
    return c;
  }

  @Override
  public void close() {
    retries.shutdownNow();
    admin.close();
  }

  @Override
  public String toString() {
    return "RemotingTransport{" + connection + "}";
  }
}
