package io.txmsg.reliability;

/** Short (every scenario well under a minute, in ./mvnw verify) or long (-Preliability). */
final class Scale {
  private Scale() {}

  static boolean isLong() {
    return "long".equals(System.getProperty("txmsg.reliability.scale", "short"));
  }

  static int pick(int shortValue, int longValue) {
    return isLong() ? longValue : shortValue;
  }

  /**
   * Rounds of a kill loop: {@code longValue} at long scale scaled by {@code
   * txmsg.reliability.killFactor} (default 1, rounded up). The long rows of the gRPC HALF_MESSAGE
   * runs use the full count; the other transport/mode combinations run with a smaller factor
   * (docs/reliability.md, "Long scale"), because each kill costs a JVM start.
   */
  static int kills(int shortValue, int longValue) {
    if (!isLong()) {
      return shortValue;
    }
    double factor = Double.parseDouble(System.getProperty("txmsg.reliability.killFactor", "1"));
    if (!(factor > 0 && factor <= 1)) {
      throw new IllegalArgumentException(
          "txmsg.reliability.killFactor must be in (0, 1], was " + factor);
    }
    return (int) Math.ceil(longValue * factor);
  }
}
