package io.txmsg.examples.events;

/** Version 3 of an order: the payment was refunded (sent for some orders only). */
public record OrderRefunded(String orderId, long amountCents) {}
