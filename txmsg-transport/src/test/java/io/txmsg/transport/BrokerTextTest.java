package io.txmsg.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a broker or client said, rendered for one log line. */
class BrokerTextTest {
  @Test
  void theProxysFaqTrailerIsCutAndNoLineBreakRemains() {
    String proxy =
        "[request-id=3a35, response-code=40402] CODE: 17  DESC: No topic route info in name server"
            + " for the topic: t1\nFor more information, please visit the url,"
            + " https://rocketmq.apache.org/docs/bestPractice/06FAQ";
    assertThat(BrokerText.render(proxy))
        .isEqualTo(
            "[request-id=3a35, response-code=40402] CODE: 17  DESC: No topic route info in name"
                + " server for the topic: t1");
  }

  @Test
  void theRemotingClientsFaqTrailerIsCut() {
    assertThat(
            BrokerText.render(
                "No route info of this topic: t1\nSee https://rocketmq.apache.org/docs/ for"
                    + " further details."))
        .isEqualTo("No route info of this topic: t1");
  }

  @Test
  void otherLineBreaksAndControlCharactersAreEscapedNotKept() {
    String rendered = BrokerText.render("topic[t1] not exist\r\nFAKE LOG LINE\tx\u2028y");
    assertThat(rendered)
        .doesNotContain("\n", "\r", "\t", "\u2028")
        .isEqualTo("topic[t1] not exist\\r\\nFAKE LOG LINE\\tx\\u2028y");
  }

  @Test
  void nullAndLongTextsStayBounded() {
    assertThat(BrokerText.render(null)).isEmpty();
    assertThat(BrokerText.message(new RuntimeException((String) null))).isEmpty();
    assertThat(BrokerText.render("x".repeat(1000))).hasSizeLessThan(300).endsWith("more chars)");
  }
}
