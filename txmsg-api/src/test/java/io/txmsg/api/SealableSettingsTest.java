package io.txmsg.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SealableSettingsTest {
  /** The smallest settings class: one duration, one list. */
  static final class Sample extends SealableSettings<Sample> {
    Duration wait = Duration.ofSeconds(1);
    List<String> names = new ArrayList<>();

    Sample wait(Duration d) {
      checkNotSealed();
      wait = positive("wait", d);
      return this;
    }

    Sample name(String n) {
      checkNotSealed();
      names.add(n);
      return this;
    }

    @Override
    public void validate() {
      require(!names.isEmpty(), "names", "must not be empty");
    }

    @Override
    public Sample copy() {
      Sample c = unsealedClone();
      c.names = new ArrayList<>(names);
      return c;
    }

    @Override
    protected String component() {
      return "sample";
    }

    Sample sealed() {
      return validatedSealedCopy();
    }
  }

  @Test
  void theSealedCopyRefusesChangesAndTheOriginalStaysOpen() {
    Sample original = new Sample().name("a");
    Sample sealed = original.sealed();

    assertThat(sealed.isSealed()).isTrue();
    assertThatThrownBy(() -> sealed.name("b"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Sample belong to a running sample");
    original.name("b");
    assertThat(sealed.names).containsExactly("a");
    assertThat(original.isSealed()).isFalse();
  }

  @Test
  void aCopyOfTheSealedSettingsIsOpenAndIndependent() {
    Sample sealed = new Sample().name("a").sealed();
    Sample again = sealed.copy().name("b");

    assertThat(again.isSealed()).isFalse();
    assertThat(again.names).containsExactly("a", "b");
    assertThat(sealed.names).containsExactly("a");
  }

  @Test
  void sealingValidatesFirst() {
    assertThatThrownBy(() -> new Sample().sealed())
        .isInstanceOf(InvalidSettingsException.class)
        .extracting(e -> ((InvalidSettingsException) e).setting())
        .isEqualTo("names");
  }

  @Test
  void aDurationThatIsNotPositiveIsRejectedByName() {
    for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1)}) {
      assertThatThrownBy(() -> new Sample().wait(bad))
          .isInstanceOf(InvalidSettingsException.class)
          .hasMessageContaining("wait must be a positive duration");
    }
  }
}
