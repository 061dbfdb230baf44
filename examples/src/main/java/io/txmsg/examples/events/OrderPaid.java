package io.txmsg.examples.events;

/** Version 2 of an order: the order was marked paid (sent for some orders only). */
public record OrderPaid(String orderId) {}
