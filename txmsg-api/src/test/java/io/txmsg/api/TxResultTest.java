package io.txmsg.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The acknowledgement flag of {@link TxResult} under its new name and its deprecated one. */
class TxResultTest {
  @Test
  @SuppressWarnings("removal") // the deprecated accessor is what this test is about
  void theDeprecatedHalfCommitAccessorAnswersWhatBrokerAcknowledgedAnswers() {
    for (boolean acked : new boolean[] {true, false}) {
      TxResult<String> r =
          TxResult.ofCommitted("v", "e1", "a1", acked).withPublished(List.of("e2"));
      assertThat(r.brokerAcknowledged()).isEqualTo(acked);
      assertThat(r.halfCommitAcknowledged()).isEqualTo(acked);
      assertThat(r.publishedEventIds()).containsExactly("e2");
    }
  }

  @Test
  void anAlreadyCommittedResultWasNeverAcknowledgedByThisCall() {
    assertThat(TxResult.ofAlreadyCommitted("e1", "a2").brokerAcknowledged()).isFalse();
    assertThat(TxResult.ofCommittedResultLost("e1", "a1", true).brokerAcknowledged()).isTrue();
  }
}
