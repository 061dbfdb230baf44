package io.txmsg.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A child JVM whose wall clock runs at a fixed offset, through libfaketime ({@code LD_PRELOAD}).
 * Only the wall clock moves: {@code DONT_FAKE_MONOTONIC} leaves {@code System.nanoTime()}, and with
 * it the JVM's timers, sleeps and the clients' timeouts, on the real monotonic clock. The library
 * is not part of a JDK nor of this build: {@code -Dtxmsg.reliability.faketime=<path to
 * libfaketime.so.1>} names it (docs/reliability.md, "Clock skew", says how to build it).
 */
final class Faketime {
  static final String PROPERTY = "txmsg.reliability.faketime";

  private Faketime() {}

  /** The environment that makes a child's wall clock run {@code offset} (e.g. "+5m", "-5m"). */
  static Map<String, String> environment(String offset) {
    if (!offset.matches("[+-][0-9]+[smhd]")) {
      throw new IllegalArgumentException("clockSkew must look like +5m or -30s: " + offset);
    }
    return Map.of(
        "LD_PRELOAD", library().toString(), "FAKETIME", offset, "DONT_FAKE_MONOTONIC", "1");
  }

  static Path library() {
    String configured = System.getProperty(PROPERTY, "");
    if (configured.isBlank()) {
      throw new IllegalStateException(
          "a clock-skew scenario needs libfaketime: -D"
              + PROPERTY
              + "=/path/to/libfaketime.so.1 (docs/reliability.md, \"Clock skew\")");
    }
    Path lib = Path.of(configured).toAbsolutePath();
    if (!Files.isReadable(lib)) {
      throw new IllegalStateException(PROPERTY + "=" + configured + ": no readable file there");
    }
    return lib;
  }
}
