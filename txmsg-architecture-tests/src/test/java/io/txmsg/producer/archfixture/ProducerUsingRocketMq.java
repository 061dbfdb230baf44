package io.txmsg.producer.archfixture;

import org.apache.rocketmq.client.apis.message.Message;

/** Breaks the transport rule on purpose: a producer class that names a RocketMQ client type. */
public class ProducerUsingRocketMq {
  Message message;
}
