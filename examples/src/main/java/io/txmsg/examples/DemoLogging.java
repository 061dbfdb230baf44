package io.txmsg.examples;

import java.nio.file.Path;

/** Sends the framework's logs (slf4j-simple) to a file, so the console shows the demo's story. */
final class DemoLogging {
  private DemoLogging() {}

  /** Effective only before the first logger is created, and only if not configured already. */
  static void toFile(Path file) {
    setIfAbsent("org.slf4j.simpleLogger.logFile", file.toString());
    setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "info");
    setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
    setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    setIfAbsent("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "warn");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }
}
