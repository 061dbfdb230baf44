package io.txmsg.testkit.db;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fails a test marked {@link DatabaseIndependent} that is parameterized by database (see there): a
 * mark on such a test would take it out of the CI's MariaDB/PostgreSQL steps without a word.
 */
final class DatabaseIndependenceCheck implements BeforeAllCallback, BeforeEachCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    Class<?> type = context.getRequiredTestClass();
    if (!type.isAnnotationPresent(DatabaseIndependent.class)) {
      return;
    }
    List<String> found = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        check(m, found);
      }
    }
    fail(type.getName(), found);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Method method = context.getRequiredTestMethod();
    if (method.isAnnotationPresent(DatabaseIndependent.class)) {
      List<String> found = new ArrayList<>();
      check(method, found);
      fail(method.getDeclaringClass().getName() + "#" + method.getName(), found);
    }
  }

  private static void check(Method m, List<String> found) {
    for (Parameter p : m.getParameters()) {
      if (isDatabase(p.getType())) {
        found.add(m.getName() + " takes a " + p.getType().getSimpleName());
        return;
      }
    }
    MethodSource source = m.getAnnotation(MethodSource.class);
    if (source != null) {
      for (String name : source.value()) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.contains("testdatabases") || n.contains("withdatabases")) {
          found.add(m.getName() + " gets its arguments from " + name);
          return;
        }
      }
    }
  }

  private static boolean isDatabase(Class<?> type) {
    if (type == TestDatabase.class) {
      return true;
    }
    if (type.isRecord()) {
      for (RecordComponent c : type.getRecordComponents()) {
        if (c.getType() == TestDatabase.class) {
          return true;
        }
      }
    }
    return false;
  }

  private static void fail(String where, List<String> found) {
    if (!found.isEmpty()) {
      throw new IllegalStateException(
          where
              + " is marked @DatabaseIndependent but is parameterized by database ("
              + String.join("; ", found)
              + "): the CI's MariaDB/PostgreSQL steps would leave it out");
    }
  }
}
