package io.txmsg.testkit.db;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The databases enabled for this test run, from the system property {@code txmsg.test.databases}
 * (comma-separated: {@code h2}, {@code mariadb}, {@code postgresql}; default {@code h2}). The
 * build's {@code -Pdatabases} profile enables all three.
 *
 * <p>Use as a JUnit 5 argument source:
 * {@code @ParameterizedTest @MethodSource("io.txmsg.testkit.db.TestDatabases#enabled")}.
 */
public final class TestDatabases {
  public static final String PROPERTY = "txmsg.test.databases";

  private TestDatabases() {}

  public static Stream<TestDatabase> enabled() {
    return list().stream();
  }

  public static List<TestDatabase> list() {
    return parse(PROPERTY, System.getProperty(PROPERTY, "h2"));
  }

  /**
   * The databases {@code value} names (comma-separated, as {@value #PROPERTY}); {@code property}
   * names the setting it came from in the error when it names none.
   */
  public static List<TestDatabase> parse(String property, String value) {
    List<TestDatabase> out = new ArrayList<>();
    for (String part : value.split(",")) {
      String p = part.trim().toUpperCase(Locale.ROOT);
      if (!p.isEmpty()) {
        out.add(TestDatabase.valueOf(p));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalStateException(property + " names no database: '" + value + "'");
    }
    return out;
  }
}
