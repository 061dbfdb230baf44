package io.txmsg.rocketmq.remoting;

import io.txmsg.api.LogSafe;
import io.txmsg.api.TransportException;
import java.util.Optional;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.CommunicationMode;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.filter.ExpressionType;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only broker queries the remoting transport needs (topic routes and permissions, a
 * group's retry settings), made through one started client of its own. Started lazily on first use
 * and shared by everything of one transport.
 */
final class RemotingAdmin implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RemotingAdmin.class);

  /** A topic as the NameServer describes it. */
  record TopicState(boolean exists, boolean readable, String brokerName, String brokerAddress) {}

  private final RemotingClients clients;
  private DefaultMQProducer client;

  RemotingAdmin(RemotingClients clients) {
    this.clients = clients;
  }

  private synchronized MQClientAPIImpl api() throws MQClientException {
    if (client == null) {
      DefaultMQProducer p =
          clients.configure(new DefaultMQProducer("txmsg-admin", clients.rpcHook()), "admin");
      p.start();
      client = p;
    }
    return client.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
  }

  /**
   * Whether the topic exists and every queue of it is readable (a DLQ may be write-only). A
   * NameServer that does not answer within the request timeout is asked up to three times: the
   * first call of a fresh client also opens its connection.
   */
  TopicState topic(String topic) throws Exception {
    TopicRouteData route;
    try {
      route = routeWithRetries(topic);
    } catch (MQClientException e) {
      if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
        return new TopicState(false, false, null, null);
      }
      throw e;
    }
    if (route == null || route.getQueueDatas() == null || route.getQueueDatas().isEmpty()) {
      return new TopicState(false, false, null, null);
    }
    boolean readable = true;
    String brokerName = null;
    for (QueueData q : route.getQueueDatas()) {
      readable &= PermName.isReadable(q.getPerm());
      brokerName = q.getBrokerName();
    }
    String address = null;
    for (BrokerData b : route.getBrokerDatas()) {
      if (b.getBrokerName().equals(brokerName)) {
        address = b.selectBrokerAddr();
      }
    }
    return new TopicState(true, readable, brokerName, address);
  }

  private TopicRouteData routeWithRetries(String topic) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return api().getTopicRouteInfoFromNameServer(topic, clients.timeoutMillis());
      } catch (RemotingException e) {
        if (attempt == 3) {
          throw e;
        }
        log.debug("route of {} not read (attempt {}): {}", topic, attempt, e.toString());
      }
    }
  }

  /**
   * The group's configuration as the broker of {@code topic} holds it (retryMaxTimes, whether it
   * consumes in order); empty when the broker does not know the group (it will create it with its
   * defaults) or cannot be asked.
   */
  Optional<SubscriptionGroupConfig> groupConfig(String group, String topic) {
    try {
      TopicState t = topic(topic);
      if (t.brokerAddress() == null) {
        return Optional.empty();
      }
      return Optional.ofNullable(
          api().getSubscriptionGroupConfig(t.brokerAddress(), group, clients.timeoutMillis()));
    } catch (Exception e) {
      throwIfRefused(e, "group " + LogSafe.quote(group));
      log.debug("configuration of group {} unknown: {}", group, e.toString());
      return Optional.empty();
    }
  }

  /**
   * Refuses a consumer group whose every pull of {@code topic} the broker would refuse. With ACL
   * 2.0 the broker checks SUB on the topic and on the group for each pull, and the remoting client
   * only writes the refusals to its own log: without this check such a group starts and receives
   * nothing, and nothing where txmsg reports says why. One pull of at most one message, committing
   * nothing and not waiting, asks; any answer but NO_PERMISSION passes (messages, none, an offset
   * out of range, a group the broker does not know yet), and so does a topic without a route or a
   * broker that cannot be asked (the consumer's own start and pulls then say more).
   *
   * @throws TransportException when the broker refuses the pull, naming the access key, the group
   *     and the topic (never the secret)
   */
  void requireSubscribable(String group, String topic) {
    try {
      TopicState t = topic(topic);
      if (t.brokerAddress() == null) {
        return;
      }
      PullMessageRequestHeader probe = new PullMessageRequestHeader();
      probe.setConsumerGroup(group);
      probe.setTopic(topic);
      probe.setQueueId(0);
      probe.setQueueOffset(0L);
      probe.setMaxMsgNums(1);
      probe.setSysFlag(0); // no offset commit, no suspension, no subscription carried
      probe.setCommitOffset(0L);
      probe.setSuspendTimeoutMillis(0L);
      probe.setSubscription("*");
      probe.setSubVersion(0L);
      probe.setExpressionType(ExpressionType.TAG);
      api()
          .pullMessage(
              t.brokerAddress(), probe, clients.timeoutMillis(), CommunicationMode.SYNC, null);
    } catch (Exception e) {
      throwIfRefused(
          e, "topic " + LogSafe.quote(topic) + " for group " + LogSafe.quote(group) + " (a pull)");
      log.debug("pull rights of group {} on {} not checked: {}", group, topic, e.toString());
    }
  }

  /**
   * The topic's declared {@code message.type} attribute (RocketMQ 5), e.g. {@code TRANSACTION};
   * empty when the topic has none (4.x brokers, topics created without it) or the broker cannot be
   * asked. Over remoting a broker accepts half messages on a topic without the attribute, so only
   * an explicit type means anything.
   */
  Optional<String> declaredMessageType(String topic) {
    try {
      TopicState t = topic(topic);
      if (t.brokerAddress() == null) {
        return Optional.empty();
      }
      TopicConfig config = api().getTopicConfig(t.brokerAddress(), topic, clients.timeoutMillis());
      if (config == null || config.getAttributes() == null) {
        return Optional.empty();
      }
      String type = config.getAttributes().get("message.type");
      if (type == null) {
        type = config.getAttributes().get("+message.type");
      }
      return Optional.ofNullable(type);
    } catch (Exception e) {
      throwIfRefused(e, "topic " + LogSafe.quote(topic));
      log.debug("message type of {} unknown: {}", topic, e.toString());
      return Optional.empty();
    }
  }

  /**
   * A broker that answers NO_PERMISSION to these reads refused the credentials (ACL 2.0: "check
   * signature failed" for a wrong secret, a missing user, or an access key without the right):
   * every later send or pull would be refused the same way, so the start fails here, naming the
   * access key and never the secret.
   */
  private void throwIfRefused(Exception e, String what) {
    if (e instanceof MQBrokerException b && b.getResponseCode() == ResponseCode.NO_PERMISSION) {
      String accessKey = clients.accessKey();
      throw new TransportException(
          "authentication or authorization failed: the broker"
              + (b.getBrokerAddr() == null ? "" : " " + b.getBrokerAddr())
              + " refused "
              + (accessKey == null
                  ? "a client without credentials (set BrokerConnection.withCredentials)"
                  : "the credentials of access key " + LogSafe.quote(accessKey))
              + " reading "
              + what
              + " ("
              + RemotingErrors.said(b.getErrorMessage())
              + ")",
          e);
    }
  }

  /**
   * Shuts the admin client down on a thread of its own and returns at once. rocketmq-client's
   * shutdown can block for up to 3 s waiting for its connection-event thread (see {@code
   * RemotingTransport#requireTopics}), and nothing of txmsg waits on the admin client's end: a
   * transport closed because a producer could not start (a missing topic) should fail in
   * milliseconds, not seconds. The thread is not a daemon, so a JVM still lets the shutdown finish.
   */
  @Override
  public synchronized void close() {
    if (client != null) {
      DefaultMQProducer closing = client;
      client = null;
      Thread t =
          new Thread(
              () -> {
                try {
                  closing.shutdown();
                } catch (RuntimeException e) {
                  log.warn("admin client shutdown failed: {}", e.toString());
                }
              },
              "txmsg-remoting-admin-shutdown");
      t.start();
    }
  }
}
