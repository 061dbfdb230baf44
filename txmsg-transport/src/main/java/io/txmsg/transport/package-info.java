/**
 * The transport port: everything the txmsg runtimes need from a broker, in txmsg's own terms (an
 * envelope is a property map plus a body; no client library type crosses this package), plus the
 * one {@link io.txmsg.transport.EnvelopeCodec} and the {@link io.txmsg.transport.TransportProvider}
 * SPI that picks an implementation from the {@link io.txmsg.transport.BrokerConnection}.
 *
 * <p>Implementations: {@code txmsg-rocketmq} (gRPC through a RocketMQ 5 proxy) and, in the testkit,
 * an in-memory fake for unit tests. See docs/architecture.md, "Transport port".
 */
package io.txmsg.transport;
