package io.txmsg.rocketmq;

import io.txmsg.api.PublishException;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.client.apis.producer.Transaction;

/**
 * A store's producer over gRPC: one rocketmq-client-java {@link Producer} declaring the store's
 * topics with the check-back handler as its transaction checker. Through the proxy the topic is the
 * producer group, so every client that sent transactionally to a topic may be asked about any half
 * message of it: the handler answers UNKNOWN for other stores' messages.
 */
final class GrpcProducerChannel implements ProducerChannel {
  private final ClientServiceProvider provider;
  private final Producer producer;

  GrpcProducerChannel(ClientServiceProvider provider, Producer producer) {
    this.provider = provider;
    this.producer = producer;
  }

  @Override
  public HalfMessage sendHalf(OutboundMessage message) throws PublishException {
    try {
      // A Transaction holds at most one message: one per half message.
      Transaction tx = producer.beginTransaction();
      SendReceipt receipt = producer.send(GrpcMessages.toMessage(provider, message), tx);
      return new GrpcHalfMessage(tx, receipt.getMessageId().toString());
    } catch (Exception e) {
      throw PublishErrors.classify("half message to " + message.topic() + " not sent", e);
    }
  }

  @Override
  public String send(OutboundMessage message) throws PublishException {
    try {
      return producer.send(GrpcMessages.toMessage(provider, message)).getMessageId().toString();
    } catch (Exception e) {
      throw PublishErrors.classify("message to " + message.topic() + " not sent", e);
    }
  }

  @Override
  public void close() throws Exception {
    producer.close();
  }

  private record GrpcHalfMessage(Transaction tx, String messageId) implements HalfMessage {
    @Override
    public void commit() throws PublishException {
      try {
        tx.commit();
      } catch (Exception e) {
        throw PublishErrors.classify("commit of half message " + messageId, e);
      }
    }

    @Override
    public void rollback() throws PublishException {
      try {
        tx.rollback();
      } catch (Exception e) {
        throw PublishErrors.classify("rollback of half message " + messageId, e);
      }
    }
  }
}
