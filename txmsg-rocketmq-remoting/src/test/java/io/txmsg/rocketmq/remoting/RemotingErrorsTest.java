package io.txmsg.rocketmq.remoting;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.PublishException;
import org.apache.rocketmq.client.common.ClientErrorCode;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.Test;

/** The remoting error mapping: which failures are permanent, which are worth retrying. */
class RemotingErrorsTest {
  private static PublishException broker(int code, String remark) {
    return RemotingErrors.classify("send", new MQBrokerException(code, remark, "127.0.0.1:10911"));
  }

  @Test
  void brokerCodesForAMissingTopicNoPermissionOrAnIllegalMessageArePermanent() {
    assertThat(broker(ResponseCode.TOPIC_NOT_EXIST, "topic[x] not exist"))
        .satisfies(e -> assertThat(e.errorCode()).isEqualTo("TOPIC_NOT_FOUND"))
        .satisfies(e -> assertThat(e.retryable()).isFalse());
    assertThat(broker(ResponseCode.NO_PERMISSION, "the topic[x] sending message is forbidden"))
        .satisfies(e -> assertThat(e.errorCode()).isEqualTo("PERMISSION_DENIED"))
        .satisfies(e -> assertThat(e.retryable()).isFalse());
    assertThat(broker(ResponseCode.MESSAGE_ILLEGAL, "the message body size over max value"))
        .satisfies(e -> assertThat(e.errorCode()).isEqualTo("TOO_LARGE"))
        .satisfies(e -> assertThat(e.retryable()).isFalse());
  }

  @Test
  void busyBrokersFlushAndReplicaTimeoutsAreRetryable() {
    for (int code :
        new int[] {
          ResponseCode.SYSTEM_BUSY,
          ResponseCode.FLUSH_DISK_TIMEOUT,
          ResponseCode.SLAVE_NOT_AVAILABLE,
          ResponseCode.FLUSH_SLAVE_TIMEOUT,
          ResponseCode.SERVICE_NOT_AVAILABLE
        }) {
      PublishException e = broker(code, "busy");
      assertThat(e.retryable()).as("code %d", code).isTrue();
      assertThat(e.errorCode()).isEqualTo("BROKER_BUSY");
    }
    PublishException status = RemotingErrors.notConfirmed("send", SendStatus.FLUSH_DISK_TIMEOUT);
    assertThat(status.retryable()).isTrue();
    assertThat(status.errorCode()).isEqualTo("FLUSH_DISK_TIMEOUT");
  }

  @Test
  void clientSideNoRouteIsATopicNotFoundAndNetworkFailuresAreRetryable() {
    PublishException noRoute =
        RemotingErrors.classify(
            "send",
            new MQClientException(
                ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION,
                "No route info of this topic: x\nSee https://rocketmq.apache.org/docs/ for further details."));
    assertThat(noRoute.errorCode()).isEqualTo("TOPIC_NOT_FOUND");
    assertThat(noRoute.retryable()).isFalse();
    assertThat(noRoute.getMessage()).doesNotContain("See https");
    // The selector send (FIFO rows) words it differently and sets no code.
    PublishException noRouteForGroup =
        RemotingErrors.classify(
            "send", new MQClientException("No route info for this topic, x", null));
    assertThat(noRouteForGroup.errorCode()).isEqualTo("TOPIC_NOT_FOUND");
    assertThat(noRouteForGroup.retryable()).isFalse();

    assertThat(RemotingErrors.classify("send", new RemotingTimeoutException("wait timeout")))
        .satisfies(e -> assertThat(e.retryable()).isTrue())
        .satisfies(e -> assertThat(e.errorCode()).isEqualTo("RemotingTimeoutException"));
    assertThat(
            RemotingErrors.classify(
                "send",
                new MQClientException("send failed", new RemotingConnectException("127.0.0.1:1"))))
        .satisfies(e -> assertThat(e.retryable()).isTrue());
  }

  @Test
  void anAccessDeniedRemarkUnderAnotherCodeIsStillPermissionDenied() {
    PublishException e =
        broker(ResponseCode.SYSTEM_ERROR, "No permission for topic x (access denied)");
    assertThat(e.errorCode()).isEqualTo("PERMISSION_DENIED");
    assertThat(e.retryable()).isFalse();
  }

  @Test
  void aBrokerRemarkOrClientMessageWithALineBreakReachesTheMessageEscaped() {
    PublishException remark =
        broker(ResponseCode.TOPIC_NOT_EXIST, "topic[x] not exist\nINFO txmsg forged line");
    assertThat(remark.getMessage())
        .doesNotContain("\n")
        .contains("topic[x] not exist\\nINFO txmsg forged line");
    PublishException client =
        RemotingErrors.classify("send", new MQClientException("boom\r\nforged", null));
    assertThat(client.getMessage()).doesNotContain("\n", "\r");
    assertThat(RemotingErrors.classify("send", new IllegalStateException("x\ny")).getMessage())
        .doesNotContain("\n")
        .contains("x\\ny");
  }
}
