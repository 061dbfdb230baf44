package io.txmsg.rocketmq.remoting;

import io.txmsg.api.PublishException;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.TopicKind;
import java.util.Optional;
import java.util.Set;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.sysflag.MessageSysFlag;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.EndTransactionRequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store's producer over remoting: one {@link TransactionMQProducer} in the producer group {@code
 * txmsg-<storeId>}, the same on every instance of the store. The broker routes a check-back to one
 * live member of the group that sent the half message, so the group must be per store (not per
 * topic, not per instance): any instance of the store can answer from the shared journal, and
 * another store is never asked.
 *
 * <p>The half message is sent the way {@code sendMessageInTransaction} sends it (the prepared flag
 * and the producer group as properties, a synchronous send), but the commit is a separate step
 * ({@link HalfMessage#commit()}), because txmsg runs the local transaction between the two on the
 * caller's thread, not inside a listener callback. {@link HalfMessage#commit()} is the client's
 * oneway {@code endTransaction}, as through the proxy: a lost one is settled by the check-back.
 * {@link HalfMessage#commitAndConfirm()} sends the same request synchronously and reads the
 * broker's answer.
 */
final class RemotingProducerChannel implements ProducerChannel {
  private static final Logger log = LoggerFactory.getLogger(RemotingProducerChannel.class);

  /** The queue of a message group: a stable hash over the topic's write queues. */
  private static final MessageQueueSelector BY_GROUP =
      (queues, msg, group) -> queues.get(Math.floorMod(group.hashCode(), queues.size()));

  private final TransactionMQProducer producer;
  private final String group;
  private final Set<String> topics;
  private final RemotingAdmin admin;

  RemotingProducerChannel(
      TransactionMQProducer producer, String group, Set<String> topics, RemotingAdmin admin) {
    this.producer = producer;
    this.group = group;
    this.topics = Set.copyOf(topics);
    this.admin = admin;
  }

  @Override
  public HalfMessage sendHalf(OutboundMessage message) throws PublishException {
    if (message.messageGroup() != null) {
      // As the gRPC client does: a transactional message cannot be FIFO.
      throw new PublishException(
          "half message to " + message.topic() + ": a half message cannot have a message group",
          "BAD_REQUEST",
          false,
          null);
    }
    Message msg = RemotingMessages.toMessage(message);
    MessageAccessor.putProperty(msg, MessageConst.PROPERTY_TRANSACTION_PREPARED, "true");
    MessageAccessor.putProperty(msg, MessageConst.PROPERTY_PRODUCER_GROUP, group);
    SendResult result;
    try {
      result = producer.send(msg);
    } catch (Exception e) {
      throw RemotingErrors.classify("half message to " + message.topic() + " not sent", e);
    }
    RemotingHalfMessage half = new RemotingHalfMessage(producer, msg, result);
    if (result.getSendStatus() != SendStatus.SEND_OK) {
      // Stored on the master but not flushed/replicated as configured: sendMessageInTransaction
      // rolls such a half message back, and so does txmsg (the caller sees a retryable failure
      // before its local transaction, so nothing is committed for it).
      try {
        half.end(LocalTransactionState.ROLLBACK_MESSAGE);
      } catch (PublishException rollbackLost) {
        log.debug("rollback of unconfirmed half message lost: {}", rollbackLost.getMessage());
      }
      throw RemotingErrors.notConfirmed(
          "half message to " + message.topic(), result.getSendStatus());
    }
    return half;
  }

  @Override
  public String send(OutboundMessage message) throws PublishException {
    SendResult result;
    try {
      Message msg = RemotingMessages.toMessage(message);
      result =
          message.messageGroup() == null
              ? producer.send(msg)
              // FIFO over remoting: every message of a group goes to the same queue, which an
              // orderly consumer reads in order.
              : producer.send(msg, BY_GROUP, message.messageGroup());
    } catch (Exception e) {
      throw RemotingErrors.classify("message to " + message.topic() + " not sent", e);
    }
    if (result.getSendStatus() != SendStatus.SEND_OK) {
      // A resend makes a duplicate at worst, which consumers drop by event id.
      throw RemotingErrors.notConfirmed("message to " + message.topic(), result.getSendStatus());
    }
    return result.getMsgId();
  }

  @Override
  public boolean confirmsCommits() {
    return true;
  }

  /**
   * From the topic's {@code message.type} attribute on its broker (RocketMQ 5); unknown when the
   * topic declares none (a 4.x broker, or a topic created without it), which over remoting still
   * accepts half messages.
   */
  @Override
  public Optional<Set<TopicKind>> acceptedKinds(String topic) {
    if (!topics.contains(topic)) {
      return Optional.empty();
    }
    return admin
        .declaredMessageType(topic)
        .flatMap(
            type -> {
              for (TopicKind k : TopicKind.values()) {
                if (k.name().equalsIgnoreCase(type)) {
                  return Optional.of(Set.of(k));
                }
              }
              // UNSPECIFIED, MIXED or a newer type: the broker does not restrict the topic.
              return Optional.empty();
            });
  }

  @Override
  public void close() {
    producer.shutdown();
  }

  private static final class RemotingHalfMessage implements HalfMessage {
    private final TransactionMQProducer producer;
    private final Message msg;
    private final SendResult result;

    RemotingHalfMessage(TransactionMQProducer producer, Message msg, SendResult result) {
      this.producer = producer;
      this.msg = msg;
      this.result = result;
    }

    @Override
    public String messageId() {
      return result.getMsgId();
    }

    @Override
    public void commit() throws PublishException {
      end(LocalTransactionState.COMMIT_MESSAGE);
    }

    @Override
    public void rollback() throws PublishException {
      end(LocalTransactionState.ROLLBACK_MESSAGE);
    }

    /**
     * END_TRANSACTION as the client builds it for its oneway commit, but sent synchronously so that
     * the broker's answer (the result of writing the final message) is read instead of dropped.
     */
    @Override
    public boolean commitAndConfirm() throws PublishException {
      String what = "commit of half message " + result.getMsgId();
      RemotingCommand response;
      try {
        MQClientInstance client = producer.getDefaultMQProducerImpl().getMqClientFactory();
        String brokerName =
            client.getBrokerNameFromMessageQueue(
                producer.queueWithNamespace(result.getMessageQueue()));
        String brokerAddr = client.findBrokerAddressInPublish(brokerName);
        if (brokerAddr == null) {
          throw new PublishException(
              what + ": no address for broker " + brokerName + " (outcome unknown)",
              "BROKER_NOT_FOUND",
              true,
              null);
        }
        EndTransactionRequestHeader header = new EndTransactionRequestHeader();
        header.setTopic(msg.getTopic());
        header.setBrokerName(brokerName);
        header.setTransactionId(result.getTransactionId());
        header.setCommitLogOffset(
            MessageDecoder.decodeMessageId(
                    result.getOffsetMsgId() != null ? result.getOffsetMsgId() : result.getMsgId())
                .getOffset());
        header.setCommitOrRollback(MessageSysFlag.TRANSACTION_COMMIT_TYPE);
        header.setProducerGroup(producer.getProducerGroup());
        header.setTranStateTableOffset(result.getQueueOffset());
        header.setMsgId(result.getMsgId());
        RemotingCommand request =
            RemotingCommand.createRequestCommand(RequestCode.END_TRANSACTION, header);
        response =
            client
                .getMQClientAPIImpl()
                .getRemotingClient()
                .invokeSync(brokerAddr, request, producer.getSendMsgTimeout());
      } catch (PublishException e) {
        throw e;
      } catch (Exception e) {
        throw RemotingErrors.classify(what + " (outcome unknown)", e);
      }
      if (response.getCode() != ResponseCode.SUCCESS) {
        // SYSTEM_ERROR "find prepared message failed", ILLEGAL_OPERATION, SLAVE_NOT_AVAILABLE...:
        // retryable in the sense that the check-back and the reconciler finish the event.
        throw new PublishException(
            what
                + " answered "
                + response.getCode()
                + (response.getRemark() == null ? "" : ": " + response.getRemark())
                + " (outcome unknown)",
            "END_TRANSACTION_" + response.getCode(),
            true,
            null);
      }
      return true;
    }

    void end(LocalTransactionState state) throws PublishException {
      try {
        producer.getDefaultMQProducerImpl().endTransaction(msg, result, state, null);
      } catch (Exception e) {
        throw RemotingErrors.classify(
            (state == LocalTransactionState.COMMIT_MESSAGE ? "commit" : "rollback")
                + " of half message "
                + result.getMsgId(),
            e);
      }
    }
  }
}
