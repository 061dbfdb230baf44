package io.txmsg.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The README's first command, as a test: it consumes the testkit exactly as a user would. */
class PaymentDemoTest {
  @Test
  void demoDeliversTheEventConfirmsItAndAbsorbsTheRetry() throws Exception {
    assertThat(PaymentDemo.run()).isZero();
  }
}
