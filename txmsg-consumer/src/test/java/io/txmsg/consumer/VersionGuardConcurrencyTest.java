package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.TxmsgStore;
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
 * {@link VersionGuard} under concurrency, on every enabled database and both ways of reaching the
 * row: insert-if-absent + conditional UPDATE (every database) and the single upsert (PostgreSQL).
 * Threads released together apply versions of aggregates nobody has seen yet, each in a READ
 * COMMITTED transaction of its own as the claim transaction is; the row must end as the rule says
 * with no update lost and no version applied twice.
 */
class VersionGuardConcurrencyTest {
  private static final int THREADS = 8;
  private static final int ROUNDS = 15;

  static Stream<Arguments> paths() {
    List<Arguments> out = new ArrayList<>();
    for (TestDatabase kind : TestDatabases.enabled().toList()) {
      out.add(Arguments.of(kind, false));
      if (kind == TestDatabase.POSTGRESQL) {
        out.add(Arguments.of(kind, true));
      }
    }
    return out.stream();
  }

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
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      try {
        boolean applied =
            guard.apply(
                c,
                "g",
                "Order",
                aggregate,
                version,
                "e-" + aggregate + "-" + version + "-" + Thread.currentThread().getId(),
                contiguous);
        c.commit();
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

  @ParameterizedTest(name = "{0} upsert={1}")
  @MethodSource("paths")
  @Timeout(300)
  void monotonicAppliesExactlyOneOfTheSameVersionAndEndsAtTheHighest(
      TestDatabase kind, boolean upsert) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      VersionRows tx = new VersionRows(db.dataSource(), store, upsert);
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

  @ParameterizedTest(name = "{0} upsert={1}")
  @MethodSource("paths")
  @Timeout(300)
  void contiguousAppliesAnUnbrokenRunEndingWhereTheRowSays(TestDatabase kind, boolean upsert)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      VersionRows tx = new VersionRows(db.dataSource(), store, upsert);
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

  @ParameterizedTest(name = "{0} upsert={1}")
  @MethodSource("paths")
  void aVersionRowDeletedByHandIsCreatedAgainByTheNextDelivery(TestDatabase kind, boolean upsert)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      VersionRows tx = new VersionRows(db.dataSource(), store, upsert);
      VersionGuard guard = new VersionGuard(tx);
      assertThat(attempt(db, store, guard, "o1", 1, false)).isEqualTo(Decision.APPLIED);
      try (Connection c = db.dataSource().getConnection();
          java.sql.Statement st = c.createStatement()) {
        st.executeUpdate("DELETE FROM txmsg_aggregate_version");
      }
      if (!upsert) {
        // The row was remembered as existing: this delivery fails (transient) and forgets it.
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> attempt(db, store, guard, "o1", 2, false))
            .isInstanceOf(ConsumePipeline.VersionRowMissingException.class);
      }
      assertThat(attempt(db, store, guard, "o1", 2, false)).isEqualTo(Decision.APPLIED);
      assertThat(lastApplied(tx, "o1")).isEqualTo(2);
    }
  }
}
