package io.txmsg.consumer.archfixture;

import io.micrometer.core.instrument.MeterRegistry;

/** Breaks the Micrometer rule on purpose: a core consumer class that holds a meter registry. */
public class ConsumerUsingMicrometer {
  MeterRegistry registry;
}
