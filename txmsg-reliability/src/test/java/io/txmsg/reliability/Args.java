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
