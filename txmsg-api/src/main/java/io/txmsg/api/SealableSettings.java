package io.txmsg.api;

import java.time.Duration;

/**
 * What the producer's and the consumer's settings share: checks that fail with an {@link
 * InvalidSettingsException} naming the setting, and sealing. A builder takes a validated, sealed
 * copy at {@code build()}: the running component reads that copy, so changing the caller's settings
 * afterwards changes nothing, and every setter of the sealed copy throws {@link
 * IllegalStateException}.
 *
 * @param <S> the settings class itself
 */
public abstract class SealableSettings<S extends SealableSettings<S>> implements Cloneable {
  private boolean sealed;

  /** Only the txmsg settings classes extend this. */
  protected SealableSettings() {}

  /**
   * Checks every setting.
   *
   * @throws InvalidSettingsException naming the first bad setting
   */
  public abstract void validate();

  /** An unsealed deep copy, e.g. to configure a second component like this one. */
  public abstract S copy();

  /** Whether these are the sealed settings of a running component. */
  public final boolean isSealed() {
    return sealed;
  }

  /**
   * For every setter, before it changes anything.
   *
   * @throws IllegalStateException when these settings are sealed
   */
  protected final void checkNotSealed() {
    if (sealed) {
      throw new IllegalStateException(
          "these "
              + getClass().getSimpleName()
              + " belong to a running "
              + component()
              + " and cannot change; configure new "
              + getClass().getSimpleName()
              + " before build()");
    }
  }

  /** What runs on the sealed copy ("producer", "consumer"), for the message of a refused change. */
  protected abstract String component();

  /** {@link #validate()}, then a sealed {@link #copy()}. */
  protected final S validatedSealedCopy() {
    validate();
    S c = copy();
    ((SealableSettings<?>) c).sealed = true;
    return c;
  }

  /** A field-by-field clone, unsealed: the start of {@link #copy()} (which copies collections). */
  @SuppressWarnings("unchecked")
  protected final S unsealedClone() {
    try {
      S c = (S) super.clone();
      ((SealableSettings<?>) c).sealed = false;
      return c;
    } catch (CloneNotSupportedException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * Returns {@code value} when it is a positive duration.
   *
   * @throws InvalidSettingsException naming {@code setting} otherwise (null included)
   */
  protected static Duration positive(String setting, Duration value) {
    require(
        value != null && !value.isNegative() && !value.isZero(),
        setting,
        "must be a positive duration, got " + value);
    return value;
  }

  /**
   * @throws InvalidSettingsException naming {@code setting} with {@code problem} when {@code ok} is
   *     false
   */
  protected static void require(boolean ok, String setting, String problem) {
    if (!ok) {
      throw new InvalidSettingsException(setting, problem);
    }
  }
}
