package io.txmsg.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A child JVM whose wall clock runs at a fixed offset, through libfaketime ({@code LD_PRELOAD}).
 * Only the wall clock moves: {@code DONT_FAKE_MONOTONIC} leaves {@code System.nanoTime()}, and with
 * it the JVM's timers, sleeps and the clients' timeouts, on the real monotonic clock. The library
 * is Debian's {@code libfaketime} package (found at its usual paths), or the file {@code
 * -Dtxmsg.reliability.faketime=<path to libfaketime.so.1>} names (docs/reliability.md, "Clock
 * skew").
 */
final class Faketime {
  static final String PROPERTY = "txmsg.reliability.faketime";

  /** Set (to 1) by CI, which installs the library: a missing one fails instead of skipping. */
  static final String REQUIRED_ENV = "TXMSG_REQUIRE_FAKETIME";

  /** Where Debian's libfaketime package puts the library, per architecture. */
  private static final List<Path> PACKAGE_PATHS =
      List.of(
          Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/faketime/libfaketime.so.1"));

  private Faketime() {}

  /** The environment that makes a child's wall clock run {@code offset} (e.g. "+5m", "-5m"). */
  static Map<String, String> environment(String offset) {
    if (!offset.matches("[+-][0-9]+[smhd]")) {
      throw new IllegalArgumentException("clockSkew must look like +5m or -30s: " + offset);
    }
    return Map.of(
        "LD_PRELOAD",
        library().toString(),
        "FAKETIME",
        offset,
        "DONT_FAKE_MONOTONIC",
        "1",
        // libfaketime 0.9.10 (Debian 12's package) turns its "monotonic fix" on by itself for this
        // glibc: it then shifts the deadline of every wait on the monotonic clock by the offset,
        // although DONT_FAKE_MONOTONIC leaves that clock real. Java's timed waits then return at
        // once (+5m) or run 5 minutes long (-5m). Off, they take their real time (checked with
        // parkNanos, Object.wait and Thread.sleep; fixed upstream after 0.9.10).
        "FAKETIME_FORCE_MONOTONIC_FIX",
        "0");
  }

  /**
   * The library: the file the property names (which must exist), else Debian's package.
   *
   * @return empty when the property is not set and the package is not installed
   */
  static Optional<Path> find() {
    String configured = System.getProperty(PROPERTY, "");
    if (!configured.isBlank()) {
      Path lib = Path.of(configured).toAbsolutePath();
      if (!Files.isReadable(lib)) {
        throw new IllegalStateException(PROPERTY + "=" + configured + ": no readable file there");
      }
      return Optional.of(lib);
    }
    return PACKAGE_PATHS.stream().filter(Files::isReadable).findFirst();
  }

  static Path library() {
    return find().orElseThrow(() -> new IllegalStateException(missing()));
  }

  /** Whether the caller (CI) asked for a failure rather than a skip when the library is missing. */
  static boolean required() {
    return "1".equals(System.getenv(REQUIRED_ENV));
  }

  static String missing() {
    return "a clock-skew scenario needs libfaketime: apt-get install libfaketime, or -D"
        + PROPERTY
        + "=/path/to/libfaketime.so.1 (docs/reliability.md, \"Clock skew\")";
  }
}
