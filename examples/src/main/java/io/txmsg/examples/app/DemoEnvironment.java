package io.txmsg.examples.app;

import io.txmsg.api.DeliveryMode;
import io.txmsg.transport.BrokerConnection;

/**
 * What the Spring configuration needs from outside: where the broker is, how many threads each
 * consumer group gets and how the producer delivers (half message or outbox).
 */
public record DemoEnvironment(
    BrokerConnection connection, int consumerThreads, DeliveryMode deliveryMode) {}
