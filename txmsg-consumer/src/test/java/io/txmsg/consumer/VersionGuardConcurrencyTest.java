package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.consume.VersionRows;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link VersionGuard} under concurrency, on every enabled database and every way of reaching the
 * row: insert-if-absent in a transaction of its own + conditional UPDATE (every database), the
 * single upsert (PostgreSQL) and the insert inside the claim transaction (MariaDB). Threads
 * released together claim (a consume-log row of their own, as the pipeline's first statement) and
 * apply versions, each in a READ COMMITTED transaction of its own as the claim transaction is; the
 * row must end as the rule says with no update lost, no version applied twice and no deadlock.
 */
class VersionGuardConcurrencyTest {
  private static final int THREADS = 8;
  private static final int ROUNDS = 15;

  /** How the version row is reached. */
  enum Way {
    OWN_TRANSACTION,
    UPSERT,
    IN_CLAIM
  }

  static Stream<Arguments> paths() {
    List<Arguments> out = new ArrayList<>();
    for (TestDatabase kind : TestDatabases.enabled().toList()) {
      out.add(Arguments.of(kind, Way.OWN_TRANSACTION));
      if (kind == TestDatabase.POSTGRESQL) {
        out.add(Arguments.of(kind, Way.UPSERT));
      }
      if (kind == TestDatabase.MARIADB) {
        out.add(Arguments.of(kind, Way.IN_CLAIM));
      }
    }
    return out.stream();
  }

  /** MariaDB when enabled (the only dialect that creates the row in the claim transaction). */
  static Stream<TestDatabase> mariaDb() {
    return TestDatabases.enabled().filter(k -> k == TestDatabase.MARIADB);
  }

  private static VersionRows rows(DatabaseFixture db, TxmsgStore store, Way way) {
    return new VersionRows(db.dataSource(), store, way == Way.UPSERT, way == Way.IN_CLAIM);
  }

  private static final java.util.concurrent.atomic.AtomicLong EVENTS =
      new java.util.concurrent.atomic.AtomicLong();

  /** What one thread's transaction decided. */
  private enum Decision {
    APPLIED,
    STALE,
    GAP
  }

  private static Decision attempt(
      DatabaseFixture db,
      TxmsgStore store,
      VersionGuard guard,
      String aggregate,
      long version,
      boolean contiguous)
      throws Exception {
    guard.prepare("g", "Order", aggregate);
    String eventId = "e-" + aggregate + "-" + version + "-" + EVENTS.incrementAndGet();
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      try {
        // The pipeline's first statement: the consume-log claim, then the guard.
        assertThat(new ConsumeLog(db.dataSource(), store).claim(c, "g", eventId, "T", "h", 1))
            .isTrue();
        boolean applied = guard.apply(c, "g", "Order", aggregate, version, eventId, contiguous);
        c.commit();
        guard.committed("g", "Order", aggregate);
        return applied ? Decision.APPLIED : Decision.STALE;
      } catch (ConsumePipeline.GapException gap) {
        c.rollback();
        return Decision.GAP;
      } catch (Exception | Error e) {
        c.rollback();
        throw e;
      }
    }
  }

  private static Long lastApplied(VersionRows rows, String aggregate) throws Exception {
    return rows.lastApplied("g", "Order", aggregate);
  }

  /** Runs THREADS attempts released together; {@code version(i)} is thread i's version. */
  private static List<Decision> race(
      DatabaseFixture db,
      TxmsgStore store,
      VersionGuard guard,
      String aggregate,
      java.util.function.IntToLongFunction version,
      boolean contiguous)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Future<Decision>> futures = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        long v = version.applyAsLong(i);
        futures.add(
            pool.submit(
                () -> {
                  start.await(30, TimeUnit.SECONDS);
                  return attempt(db, store, guard, aggregate, v, contiguous);
                }));
      }
      List<Decision> out = new ArrayList<>();
      for (Future<Decision> f : futures) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private static TxmsgStore install(DatabaseFixture db) throws Exception {
    SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
    return TxmsgStore.detect(db.dataSource(), "txmsg_");
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("paths")
  @Timeout(300)
  void monotonicAppliesExactlyOneOfTheSameVersionAndEndsAtTheHighest(TestDatabase kind, Way way)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      VersionRows tx = rows(db, store, way);
      VersionGuard guard = new VersionGuard(tx);
      for (int r = 0; r < ROUNDS; r++) {
        String same = "same-" + r;
        List<Decision> dup = race(db, store, guard, same, i -> 1, false);
        assertThat(dup)
            .as("round %d: the same version from %d threads", r, THREADS)
            .containsOnly(Decision.APPLIED, Decision.STALE)
            .filteredOn(d -> d == Decision.APPLIED)
            .hasSize(1);
        assertThat(lastApplied(tx, same)).isEqualTo(1);

        String rising = "rising-" + r;
        List<Decision> all = race(db, store, guard, rising, i -> i + 1, false);
        assertThat(all.get(THREADS - 1))
            .as("the highest version is always newer")
            .isEqualTo(Decision.APPLIED);
        assertThat(all).doesNotContain(Decision.GAP);
        assertThat(lastApplied(tx, rising)).as("round %d: no lost update", r).isEqualTo(THREADS);
      }
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("paths")
  @Timeout(300)
  void contiguousAppliesAnUnbrokenRunEndingWhereTheRowSays(TestDatabase kind, Way way)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      VersionRows tx = rows(db, store, way);
      VersionGuard guard = new VersionGuard(tx);
      for (int r = 0; r < ROUNDS; r++) {
        String aggregate = "c-" + r;
        List<Decision> all = race(db, store, guard, aggregate, i -> i + 1, true);
        TreeSet<Long> applied = new TreeSet<>();
        for (int i = 0; i < THREADS; i++) {
          if (all.get(i) == Decision.APPLIED) {
            applied.add((long) i + 1);
          }
        }
        // The first version applied is whichever came first (an empty row accepts any); every
        // later one was exactly one more, so the applied versions are consecutive.
        assertThat(applied).as("round %d: %s", r, all).isNotEmpty();
        assertThat(applied.last() - applied.first() + 1)
            .as("round %d: applied %s", r, applied)
            .isEqualTo(applied.size());
        assertThat(lastApplied(tx, aggregate)).isEqualTo(applied.last());
      }
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("paths")
  void aVersionRowDeletedByHandIsCreatedAgainByTheNextDelivery(TestDatabase kind, Way way)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      VersionRows tx = rows(db, store, way);
      VersionGuard guard = new VersionGuard(tx);
      assertThat(attempt(db, store, guard, "o1", 1, false)).isEqualTo(Decision.APPLIED);
      try (Connection c = db.dataSource().getConnection();
          java.sql.Statement st = c.createStatement()) {
        st.executeUpdate("DELETE FROM txmsg_aggregate_version");
      }
      if (way != Way.UPSERT) {
        // The row was remembered as existing: this delivery fails (transient) and forgets it.
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> attempt(db, store, guard, "o1", 2, false))
            .isInstanceOf(ConsumePipeline.VersionRowMissingException.class);
      }
      assertThat(attempt(db, store, guard, "o1", 2, false)).isEqualTo(Decision.APPLIED);
      assertThat(lastApplied(tx, "o1")).isEqualTo(2);
    }
  }

  /**
   * MariaDB, the row created inside the claim transaction: many concurrent claims of ONE aggregate
   * whose row exists already (INSERT IGNORE's shared lock deadlocked exactly these, 1213), and of
   * ADJACENT new aggregates (neighbours in the primary key, created at the same time: gap and
   * insert-intention locks), every thread with a guard of its own (nothing known to exist, so every
   * claim runs the insert). No transaction may fail; the rows end as the rule says.
   */
  @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
  @MethodSource("mariaDb")
  @Timeout(300)
  void concurrentClaimsOfOneAggregateAndOfAdjacentNewOnesNeverDeadlockOnMariaDb(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      VersionRows rows = rows(db, store, Way.IN_CLAIM);
      for (int r = 0; r < ROUNDS; r++) {
        // One aggregate, its row committed before the race: each thread a fresh guard.
        String one = "one-" + r;
        assertThat(attempt(db, store, new VersionGuard(rows), one, 1, false))
            .isEqualTo(Decision.APPLIED);
        List<Decision> same = raceFresh(db, store, rows, i -> one, i -> i + 2, false);
        assertThat(same).as("round %d", r).isSubsetOf(Decision.APPLIED, Decision.STALE);
        assertThat(same.get(THREADS - 1)).isEqualTo(Decision.APPLIED);
        assertThat(lastApplied(rows, one)).isEqualTo(THREADS + 1);

        // Adjacent aggregates nobody has seen, each claimed twice at once (versions 1 and 2).
        String prefix = "adj-" + r + "-";
        List<Decision> adjacent =
            raceFresh(db, store, rows, i -> prefix + (i / 2), i -> 1 + (i % 2), false);
        assertThat(adjacent).as("round %d", r).isSubsetOf(Decision.APPLIED, Decision.STALE);
        for (int a = 0; a < THREADS / 2; a++) {
          assertThat(lastApplied(rows, prefix + a)).as(prefix + a).isEqualTo(2);
        }
      }
    }
  }

  /**
   * THREADS attempts released together, each with a guard of its own (so none knows any row);
   * thread i applies {@code version(i)} to {@code aggregate(i)}. An exception (a deadlock) fails.
   */
  private static List<Decision> raceFresh(
      DatabaseFixture db,
      TxmsgStore store,
      VersionRows rows,
      java.util.function.IntFunction<String> aggregate,
      java.util.function.IntToLongFunction version,
      boolean contiguous)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Future<Decision>> futures = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        String a = aggregate.apply(i);
        long v = version.applyAsLong(i);
        futures.add(
            pool.submit(
                () -> {
                  start.await(30, TimeUnit.SECONDS);
                  return attempt(db, store, new VersionGuard(rows), a, v, contiguous);
                }));
      }
      List<Decision> out = new ArrayList<>();
      for (Future<Decision> f : futures) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
