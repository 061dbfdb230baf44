package io.txmsg.cli;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.ReplayRequests;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.ops.OpsQueries;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.store.tx.StoreTransactions;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * The one connection a CLI command uses, and the txmsg store on it. One connection for the whole
 * command: an archive run commits many batches, a trace runs several queries, and opening a
 * connection per short transaction would cost more than the work.
 */
final class Database implements AutoCloseable {
  private static final int LOGIN_TIMEOUT_SECONDS = 10;

  private final String url;
  private final Properties props;
  private final SingleConnectionDataSource dataSource;
  private final TxmsgStore store;
  private final StoreTransactions transactions;
  private final OpsQueries ops;

  Database(String url, String user, String password, String prefix) {
    Properties props = new Properties();
    if (user != null) {
      props.setProperty("user", user);
    }
    if (password != null) {
      props.setProperty("password", password);
    }
    DriverManager.setLoginTimeout(LOGIN_TIMEOUT_SECONDS);
    this.url = url;
    this.props = props;
    this.dataSource = new SingleConnectionDataSource(url, props);
    try {
      this.store = TxmsgStore.detect(dataSource, prefix);
    } catch (RuntimeException e) {
      // e.g. an unsupported database: the connection is open, the command never gets to close it
      try {
        dataSource.closeConnection();
      } catch (SQLException closeFailure) {
        e.addSuppressed(closeFailure);
      }
      throw e;
    }
    this.transactions = new StoreTransactions(dataSource, store);
    this.ops = new OpsQueries(store);
  }

  SingleConnectionDataSource dataSource() {
    return dataSource;
  }

  TxmsgStore store() {
    return store;
  }

  /**
   * The schema versions of this database and prefix. On connections of its own, not the command's
   * single one: the upgrade lock of H2 is held on a second connection while the first runs the DDL.
   */
  SchemaMigrator schema() {
    return new SchemaMigrator(new FreshConnections(url, props), store);
  }

  /** Operator queries on the command's connection, in a short read transaction of their own. */
  <T> T query(Query<T> query) throws Exception {
    return transactions.run(c -> query.run(ops, c));
  }

  /**
   * Says on {@code err}, before a search by business key, that it will read the whole journal when
   * no index serves it (schema V6 made that index opt-in), and how to create one. The search runs
   * either way: it is correct, only slower.
   */
  void noteUnindexedBusinessKeySearch(PrintWriter err) throws Exception {
    if (!query(OpsQueries::journalBusinessKeyIndexed)) {
      err.println(
          "txmsg: note: "
              + store.prefix()
              + "journal has no index on business_key (opt-in since schema V6), so this search"
              + " reads the whole journal; `txmsg schema business-key-index` creates one (without"
              + " blocking producers on PostgreSQL and MariaDB)");
      err.flush();
    }
  }

  /** Read-only work of the store's operator queries on one connection. */
  @FunctionalInterface
  interface Query<T> {
    T run(OpsQueries ops, Connection connection);
  }

  /** Several operations in one short transaction (write commands and their audit). */
  <T> T inTransaction(StoreTransactions.Work<T> work) throws Exception {
    return transactions.run(work);
  }

  Journal journal() {
    return new Journal(dataSource, store);
  }

  ReplayRequests replayRequests() {
    return new ReplayRequests(dataSource, store);
  }

  @Override
  public void close() throws SQLException {
    dataSource.closeConnection();
  }

  /** A DataSource over one lazily opened connection whose close() is deferred to the command. */
  static final class SingleConnectionDataSource extends AbstractDataSource {
    private final String url;
    private final Properties props;
    private Connection connection;

    SingleConnectionDataSource(String url, Properties props) {
      this.url = url;
      this.props = props;
    }

    @Override
    public Connection getConnection() throws SQLException {
      if (connection == null) {
        connection = DriverManager.getConnection(url, props);
      }
      Connection target = connection;
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                if (method.getName().equals("close") && method.getParameterCount() == 0) {
                  return null;
                }
                try {
                  return method.invoke(target, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }

    void closeConnection() throws SQLException {
      if (connection != null) {
        connection.close();
        connection = null;
      }
    }
  }

  /** A DataSource opening a new connection on every call; the caller closes each. */
  static final class FreshConnections extends AbstractDataSource {
    private final String url;
    private final Properties props;

    FreshConnections(String url, Properties props) {
      this.url = url;
      this.props = props;
    }

    @Override
    public Connection getConnection() throws SQLException {
      return DriverManager.getConnection(url, props);
    }
  }
}
