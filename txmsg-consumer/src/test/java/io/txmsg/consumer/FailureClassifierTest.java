package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.testkit.db.DatabaseIndependent;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import org.junit.jupiter.api.Test;

@DatabaseIndependent
class FailureClassifierTest {
  @Test
  void businessRejectionsDeclaredTypesAndHopelessSqlArePermanent() {
    assertThat(FailureClassifier.isPermanent(new PermanentConsumeException("no"), List.of()))
        .isTrue();
    assertThat(
            FailureClassifier.isPermanent(
                new RuntimeException(new IllegalArgumentException("bad")),
                List.of(IllegalArgumentException.class)))
        .isTrue();
    assertThat(FailureClassifier.isPermanent(new SQLException("too long", "22001"), List.of()))
        .isTrue();
    assertThat(FailureClassifier.isPermanent(new SQLException("dup", "23505"), List.of())).isTrue();
    assertThat(FailureClassifier.isPermanent(new SQLException("no table", "42P01"), List.of()))
        .isTrue();
  }

  @Test
  void timeoutsDeadlocksLostConnectionsAndUnknownErrorsAreRetried() {
    assertThat(
            FailureClassifier.isPermanent(
                new SQLTransientConnectionException("down", "08001"), List.of()))
        .isFalse();
    assertThat(FailureClassifier.isPermanent(new SQLException("deadlock", "40P01"), List.of()))
        .isFalse();
    assertThat(FailureClassifier.isPermanent(new SQLException("lock", "55P03"), List.of()))
        .isFalse();
    assertThat(FailureClassifier.isPermanent(new SQLException("lock", "HY000", 1205), List.of()))
        .isFalse();
    assertThat(FailureClassifier.isPermanent(new IOException("reset"), List.of())).isFalse();
    assertThat(FailureClassifier.isPermanent(new IllegalStateException("?"), List.of())).isFalse();
  }
}
