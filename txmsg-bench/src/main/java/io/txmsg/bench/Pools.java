package io.txmsg.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.testkit.db.TestDatabase;
import java.util.ArrayList;
import java.util.List;

/**
 * The connection pools of a run, all alike: txmsg's, the hand-written baselines', the consumers'
 * and the rocketmq-spring child's (its Spring Boot HikariCP pool gets the same settings as
 * properties). One URL (on H2 the {@link H2Server}), the same size, no idle minimum, and the same
 * auto-commit default: off on MariaDB, where Connector/J sends a round trip for every change of
 * auto-commit, so a pool that starts with it on pays two per explicit transaction (off, and
 * HikariCP's reset to on when the connection comes back), and on H2 over TCP, which sends a round
 * trip for every {@code setAutoCommit} call, even one that changes nothing (so off saves the
 * reset); on, the JDBC default, on PostgreSQL, where pgjdbc changes it without a round trip (the
 * BEGIN goes with the next statement).
 */
final class Pools {
  /** Connections per pool: more than the threads of any variant. */
  static final int SIZE = 40;

  final TestDatabase kind;
  final String url;
  final String user;
  final String password;

  Pools(TestDatabase kind, String url) {
    this.kind = kind;
    this.url = url;
    // The credentials TestDatabase connects with (its defaults and system properties).
    this.user =
        System.getProperty(
            "txmsg.test." + kind.id() + ".user",
            switch (kind) {
              case H2 -> "sa";
              case MARIADB -> "root";
              case POSTGRESQL -> "postgres";
            });
    this.password = System.getProperty("txmsg.test." + kind.id() + ".password", "");
  }

  /** Whether connections start in auto-commit mode. */
  boolean autoCommit() {
    return kind == TestDatabase.POSTGRESQL;
  }

  /** A pool of {@link #SIZE} on the run's database. */
  HikariDataSource open(String name) {
    return open(name, url, SIZE, null);
  }

  /** A pool of {@link #SIZE} whose connections run at {@code isolation} (a HikariCP level name). */
  HikariDataSource open(String name, String isolation) {
    return open(name, url, SIZE, isolation);
  }

  /** A pool with these settings on another database of the same kind (the check-back section's). */
  HikariDataSource open(String name, String jdbcUrl, int size, String isolation) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(jdbcUrl);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(size);
    c.setMinimumIdle(0);
    c.setAutoCommit(autoCommit());
    if (isolation != null) {
      c.setTransactionIsolation(isolation);
    }
    c.setPoolName("bench-" + kind.id() + "-" + name);
    return new HikariDataSource(c);
  }

  /** The same settings for the rocketmq-spring child's pool (Spring Boot properties). */
  List<String> springArguments() {
    List<String> a = new ArrayList<>();
    a.add("--spring.datasource.url=" + url);
    a.add("--spring.datasource.username=" + user);
    a.add("--spring.datasource.password=" + password);
    a.add("--spring.datasource.hikari.maximum-pool-size=" + SIZE);
    a.add("--spring.datasource.hikari.minimum-idle=0");
    a.add("--spring.datasource.hikari.auto-commit=" + autoCommit());
    return a;
  }

  /** What the report says of the pools. */
  String describe(String consumerPool) {
    return "Every pool is HikariCP "
        + SIZE
        + " connections, no idle minimum, on "
        + (kind == TestDatabase.H2
            ? "the one H2 database the benchmark JVM serves over TCP (`jdbc:h2:tcp://127.0.0.1:…/mem:…`)"
            : "the one database of the run")
        + ", with auto-commit **"
        + (autoCommit() ? "on" : "off")
        + "** when a connection is handed out ("
        + switch (kind) {
          case MARIADB ->
              "Connector/J sends a round trip for each change of auto-commit; with it off, the"
                  + " explicit transactions of every variant change nothing and HikariCP resets"
                  + " nothing";
          case H2 ->
              "H2's TCP client sends a round trip for every `setAutoCommit` call, even one that"
                  + " changes nothing; with it off, HikariCP resets nothing when a connection comes"
                  + " back. txmsg and the hand-written baselines still call `setAutoCommit(false)`"
                  + " at the start of each transaction (one round trip here), Spring's transaction"
                  + " manager only when auto-commit is on (none)";
          case POSTGRESQL ->
              "the JDBC default; pgjdbc changes it without a round trip, the BEGIN goes with the"
                  + " next statement";
        }
        + ") and the server's default isolation"
        + (kind == TestDatabase.POSTGRESQL || kind == TestDatabase.H2 ? " (READ COMMITTED)" : "")
        + ": txmsg's producers (every variant's TxProducer shares the benchmark's pool), the"
        + " hand-written baselines (the same pool), and the rocketmq-spring child, whose Spring"
        + " Boot pool gets the same URL, size, idle minimum and auto-commit as properties. The"
        + " consumers of sections 2 and 3 in the benchmark JVM, raw and txmsg alike, use "
        + consumerPool
        + "; the rocketmq-spring listener of section 3 uses the child's one pool.";
  }
}
