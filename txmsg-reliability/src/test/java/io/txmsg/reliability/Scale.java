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
}
