package io.txmsg.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.txmsg.api.Envelope;
import io.txmsg.bench.Credits.Paid;
import java.sql.Connection;
import java.util.function.Consumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;

/**
 * The raw consumer of the consumer and end-to-end sections over remoting: a CLUSTERING {@link
 * DefaultMQPushConsumer} (rocketmq-client) with 8 consumption threads, one message per listener
 * call, and exactly the statements of the gRPC raw consumer: Jackson decoding and the credit row in
 * its own JDBC transaction, no dedup. Plaintext (the client's default, stated).
 */
final class RawRemotingConsumer {
  private RawRemotingConsumer() {}

  /**
   * Starts the consumer; {@code applied} gets each event id after the credit row's commit, {@code
   * failed} each failed delivery (redelivered by the broker).
   */
  static DefaultMQPushConsumer start(
      BenchMain b, String group, String topic, Consumer<String> applied, Runnable failed)
      throws Exception {
    ObjectMapper json = new ObjectMapper();
    DefaultMQPushConsumer pc = new DefaultMQPushConsumer(group);
    pc.setNamesrvAddr(b.mq.namesrvAddress());
    pc.setUseTLS(false);
    pc.setConsumeThreadMin(8);
    pc.setConsumeThreadMax(8);
    pc.setConsumeMessageBatchMaxSize(1);
    pc.subscribe(topic, "*");
    pc.registerMessageListener(
        (MessageListenerConcurrently)
            (msgs, context) -> {
              for (var m : msgs) {
                String id = m.getUserProperty(Envelope.EVENT_ID);
                try {
                  Paid p = json.readValue(m.getBody(), Paid.class);
                  try (Connection c = b.consumerDs.getConnection()) {
                    c.setAutoCommit(false);
                    Credits.credit(c, group, id, p);
                    c.commit();
                  }
                } catch (Exception e) {
                  failed.run();
                  return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
                applied.accept(id);
              }
              return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
    pc.start();
    return pc;
  }
}
