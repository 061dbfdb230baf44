package io.txmsg.bench;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A rough figure for the consumer's per-message dedup cost at the database: one transaction per
 * message that inserts a business row, without and with the consume-log claim (INSERT PROCESSING +
 * UPDATE SUCCESS in the same transaction). Single connection, sequential; medians of rounds.
 *
 * <p>Run: {@code ./mvnw -q -pl txmsg-bench -am exec:java
 * -Dexec.mainClass=io.txmsg.bench.ClaimOverhead -Dexec.args="h2 mariadb postgresql"}
 */
public final class ClaimOverhead {
  private static final int MESSAGES = 2000;
  private static final int ROUNDS = 5;

  private ClaimOverhead() {}

  public static void main(String[] args) throws Exception {
    for (String name : args.length == 0 ? new String[] {"h2"} : args) {
      TestDatabase kind = TestDatabase.valueOf(name.toUpperCase(Locale.ROOT));
      try (DatabaseFixture db = kind.open()) {
        run(kind, db);
      }
    }
  }

  private static void run(TestDatabase kind, DatabaseFixture db) throws Exception {
    SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
    TxmsgStore store = TxmsgStore.detect(db.dataSource(), "txmsg_");
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE credit (event_id VARCHAR(64) NOT NULL, amount INT NOT NULL)");
    }
    List<Double> plain = new ArrayList<>();
    List<Double> claimed = new ArrayList<>();
    for (int round = 0; round < ROUNDS + 1; round++) { // round 0 warms up
      double p = perMessageMicros(db, store, "p" + round, false);
      double d = perMessageMicros(db, store, "d" + round, true);
      if (round > 0) {
        plain.add(p);
        claimed.add(d);
      }
    }
    double mp = median(plain);
    double md = median(claimed);
    System.out.printf(
        Locale.ROOT,
        "%-10s business tx %7.1f us/msg | with claim %7.1f us/msg | overhead %+6.1f us (x%.2f)%n",
        kind.id(),
        mp,
        md,
        md - mp,
        md / mp);
  }

  private static double perMessageMicros(
      DatabaseFixture db, TxmsgStore store, String prefix, boolean claim) throws Exception {
    long start = System.nanoTime();
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO credit (event_id, amount) VALUES (?, ?)")) {
        ConsumeLog log = new ConsumeLog(db.dataSource(), store);
        for (int i = 0; i < MESSAGES; i++) {
          String id = prefix + "-" + i;
          if (claim) {
            // What the consumer writes when the failure detector saw a clean handler: one INSERT
            // with the final status, no closing UPDATE.
            log.claim(c, "bench", id, "Paid", "0".repeat(64), 1);
          }
          ps.setString(1, id);
          ps.setInt(2, i);
          ps.executeUpdate();
          c.commit();
        }
      }
    }
    return (System.nanoTime() - start) / 1000.0 / MESSAGES;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
