package io.txmsg.producer.archfixture;

import io.txmsg.consumer.TxConsumers;

/** Breaks the sibling rule on purpose: a producer class that uses the consumer module. */
public class ProducerUsingConsumer {
  TxConsumers consumers;
}
