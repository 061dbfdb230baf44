package io.txmsg.examples.app;

/**
 * What the Spring configuration needs from outside: where the broker is and how many threads each
 * consumer group gets.
 */
public record DemoEnvironment(String endpoints, int consumerThreads) {}
