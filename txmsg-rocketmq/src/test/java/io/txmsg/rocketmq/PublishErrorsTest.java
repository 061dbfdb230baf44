package io.txmsg.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.PublishException;
import java.util.concurrent.ExecutionException;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.java.exception.ForbiddenException;
import org.apache.rocketmq.client.java.exception.NotFoundException;
import org.apache.rocketmq.client.java.exception.TooManyRequestsException;
import org.junit.jupiter.api.Test;

/** The gRPC error mapping: codes, retryability, and what of the proxy's text reaches a message. */
class PublishErrorsTest {
  /** The proxy's answer for a missing topic, as rocketmq-client-java 5.1.0 words it. */
  private static final String MISSING_TOPIC =
      "[request-id=3a356728, response-code=40402] CODE: 17  DESC: No topic route info in name"
          + " server for the topic: orders\nFor more information, please visit the url,"
          + " https://rocketmq.apache.org/docs/bestPractice/06FAQ";

  @Test
  void aMissingTopicIsPermanentAndItsMessageHasNoRawLineBreak() {
    PublishException e =
        PublishErrors.classify(
            "message to orders not sent",
            new ExecutionException(new NotFoundException(40402, "3a356728", MISSING_TOPIC)));
    assertThat(e.errorCode()).isEqualTo("TOPIC_NOT_FOUND");
    assertThat(e.retryable()).isFalse();
    assertThat(e.getMessage())
        .doesNotContain("\n", "\r")
        .contains("message to orders not sent: topic not found (")
        .contains("No topic route info in name server for the topic: orders")
        .doesNotContain("For more information");
  }

  @Test
  void lineBreaksInAnyOtherTextFromTheWireAreEscaped() {
    String forged = "denied\nINFO txmsg committed eventId=forged";
    assertThat(PublishErrors.classify("send", new ForbiddenException(40301, "r", forged)))
        .satisfies(e -> assertThat(e.errorCode()).isEqualTo("PERMISSION_DENIED"))
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").contains("denied\\nINFO"));
    assertThat(PublishErrors.classify("send", new TooManyRequestsException(42900, "r", "slow\r\n")))
        .satisfies(e -> assertThat(e.retryable()).isTrue())
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\r"));
    assertThat(PublishErrors.classify("send", new ClientException("a\nb")).getMessage())
        .doesNotContain("\n");
    assertThat(PublishErrors.classify("send", new IllegalStateException("x\ny")))
        .satisfies(e -> assertThat(e.errorCode()).isEqualTo("CLIENT_ERROR"))
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").contains("x\\ny"));
  }
}
