package io.txmsg.testkit.db;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class or method that runs the same whatever {@link TestDatabases#PROPERTY} says: it
 * touches no database, or only H2 (named, not taken from the enabled list). Tagged {@value #TAG}:
 * the CI's MariaDB/PostgreSQL steps leave these out ({@code -DexcludedGroups=database-independent})
 * because the plain {@code ./mvnw verify} before them already ran them exactly so.
 *
 * <p>A mark on the wrong test would silently take it out of the database steps, so the mark is
 * checked when the test runs: a marked class or method with a parameter of type {@link
 * TestDatabase} (directly, or as a component of a record parameter), or whose {@code @MethodSource}
 * names {@link TestDatabases} or one of the transport-with-database sources, fails.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag(DatabaseIndependent.TAG)
@ExtendWith(DatabaseIndependenceCheck.class)
public @interface DatabaseIndependent {
  /** The JUnit tag. */
  String TAG = "database-independent";
}
