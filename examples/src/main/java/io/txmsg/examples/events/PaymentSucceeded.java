package io.txmsg.examples.events;

/** Version 1 of an order: the payment was captured. */
public record PaymentSucceeded(String orderId, String customerId, String phone, long amountCents) {}
