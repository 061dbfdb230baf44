package io.txmsg.examples.app;

import io.txmsg.transport.BrokerConnection;

/**
 * What the Spring configuration needs from outside: where the broker is and how many threads each
 * consumer group gets.
 */
public record DemoEnvironment(BrokerConnection connection, int consumerThreads) {}
