package io.txmsg.reliability;

import java.util.HashMap;
import java.util.Map;

/** key=value arguments of the child mains. */
final class Args {
  private final Map<String, String> values = new HashMap<>();

  Args(String[] args) {
    for (String a : args) {
      int i = a.indexOf('=');
      values.put(a.substring(0, i), a.substring(i + 1));
    }
  }

  String get(String key) {
    String v = values.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + key);
    }
    return v;
  }

  String get(String key, String fallback) {
    return values.getOrDefault(key, fallback);
  }

  long getLong(String key, long fallback) {
    return values.containsKey(key) ? Long.parseLong(values.get(key)) : fallback;
  }

  static void say(String line) {
    System.out.println("TXMSG-REL " + line);
    System.out.flush();
  }

  /** How long {@link #pausePoint} waits: the parent's time to SIGSTOP the process there. */
  static final java.time.Duration PAUSE_WINDOW = java.time.Duration.ofSeconds(3);

  /**
   * Says {@code marker}, then sleeps {@link #PAUSE_WINDOW} and returns: the parent SIGSTOPs the
   * process meanwhile and SIGCONTs it later, so the caller carries on after a pause it never saw.
   */
  static void pausePoint(String marker) {
    say(marker);
    try {
      Thread.sleep(PAUSE_WINDOW.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Blocks forever: the parent SIGKILLs the process at this point. */
  static void hang(String marker) {
    say(marker);
    while (true) {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        // keep hanging: only SIGKILL ends this
      }
    }
  }
}
