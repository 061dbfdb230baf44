package io.txmsg.store;

import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;
import javax.sql.DataSource;
import org.apache.ibatis.builder.xml.XMLMapperBuilder;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.LocalCacheScope;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.managed.ManagedTransactionFactory;
import org.apache.ibatis.type.JdbcType;

/**
 * The txmsg tables of one business database: a MyBatis configuration holding the dialect's mapper
 * statements for a table prefix. The operations on those tables live in the sub-packages ({@code
 * journal}, {@code consume}, {@code archive}, {@code schema}, {@code ops}), each over its own
 * mappers; they reach the configuration through {@link #on} and {@link #session}, which are for the
 * store's packages, not for applications.
 *
 * <p>Sessions are opened on a connection the caller owns: txmsg writes must share the application's
 * transaction, so the store never commits, rolls back or closes a connection itself.
 */
public final class TxmsgStore {
  /**
   * The mapper files, the shared fragments first (every mapper includes them). Each sits next to
   * its interface's package, with that interface's name as its namespace.
   */
  static final List<String> MAPPERS =
      List.of(
          "io/txmsg/store/Sql.xml",
          "io/txmsg/store/Columns.xml",
          "io/txmsg/store/SessionMapper.xml",
          "io/txmsg/store/journal/AttemptMapper.xml",
          "io/txmsg/store/journal/JournalMapper.xml",
          "io/txmsg/store/journal/InstanceMapper.xml",
          "io/txmsg/store/consume/ConsumeLogMapper.xml",
          "io/txmsg/store/consume/AggregateVersionMapper.xml",
          "io/txmsg/store/consume/DeadLetterMapper.xml",
          "io/txmsg/store/consume/CommandMapper.xml",
          "io/txmsg/store/consume/ReplayMapper.xml",
          "io/txmsg/store/ops/OpsQueryMapper.xml",
          "io/txmsg/store/archive/ArchiveMapper.xml",
          "io/txmsg/store/cdc/CdcRelayMapper.xml");

  private final Dialect dialect;
  private final String prefix;
  private final SqlSessionFactory factory;

  private TxmsgStore(Dialect dialect, String prefix) {
    this.dialect = dialect;
    this.prefix = TablePrefix.validate(prefix);
    this.factory = new SqlSessionFactoryBuilder().build(configuration(dialect, prefix));
  }

  /** A store for a dialect that is already known. */
  public static TxmsgStore of(Dialect dialect, String prefix) {
    return new TxmsgStore(dialect, prefix);
  }

  /**
   * Detects the dialect from the DataSource's JDBC metadata. Checks nothing about the schema: a
   * runtime starts with {@code SchemaMigrator.open}, which does.
   */
  public static TxmsgStore detect(DataSource dataSource, String prefix) {
    try (Connection c = dataSource.getConnection()) {
      return new TxmsgStore(Dialect.detect(c), prefix);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the database type: " + e.getMessage(), e);
    }
  }

  public Dialect dialect() {
    return dialect;
  }

  public String prefix() {
    return prefix;
  }

  /**
   * A MyBatis session on the caller's connection; closing it leaves the connection open. For the
   * store's own packages.
   */
  public SqlSession session(Connection connection) {
    return factory.openSession(connection);
  }

  /**
   * Runs {@code statements} on a mapper of {@code mapper} bound to the caller's connection, in
   * whatever transaction that connection is in. For the store's own packages, whose mappers are
   * package-private; a failed statement surfaces as the unchecked exception MyBatis wraps its
   * SQLException in (found by {@code SqlStates}).
   */
  public <M, R> R on(Connection connection, Class<M> mapper, Function<M, R> statements) {
    try (SqlSession session = session(connection)) {
      return statements.apply(session.getMapper(mapper));
    }
  }

  /**
   * Bounds the lock wait of the next fencing attempt insert on this connection, the dialect's way.
   *
   * @return what to restore once the transaction ended, or null when the bound ends with it
   */
  public Dialect.LockWait boundLockWait(Connection connection, long millis) {
    return dialect.boundLockWait(session(connection).getMapper(SessionMapper.class), millis);
  }

  /** No query JIT for the rest of this connection's transaction where the database has one. */
  public void planWithoutJit(Connection connection) {
    on(
        connection,
        SessionMapper.class,
        m -> {
          dialect.planWithoutJit(m);
          return null;
        });
  }

  /**
   * Takes the lock that serialises schema installs and upgrades of this prefix, waiting at most
   * {@code wait}. It outlives commits: the upgrade's statements each commit (implicitly on MariaDB
   * and H2).
   *
   * @param ddl the connection the upgrade runs on, in auto-commit mode
   * @param dataSource where a dialect that locks on a second connection takes it
   * @return the held lock, or null when another session held it for all of {@code wait}
   */
  public Dialect.SchemaLock lockSchema(Connection ddl, DataSource dataSource, Duration wait)
      throws SQLException {
    return dialect.lockSchema(this, ddl, dataSource, wait);
  }

  private static Configuration configuration(Dialect dialect, String prefix) {
    Configuration config = new Configuration();
    Properties closeNever = new Properties();
    closeNever.setProperty("closeConnection", "false");
    ManagedTransactionFactory tx = new ManagedTransactionFactory();
    tx.setProperties(closeNever);
    // The DataSource is never used: every session is opened on a caller's connection.
    config.setEnvironment(new Environment("txmsg", tx, new UnusedDataSource()));
    config.setDatabaseId(dialect.id());
    config.setMapUnderscoreToCamelCase(true);
    config.setJdbcTypeForNull(JdbcType.NULL);
    config.setCacheEnabled(false);
    config.setLocalCacheScope(LocalCacheScope.STATEMENT);
    Properties vars = new Properties();
    vars.setProperty("prefix", prefix);
    config.setVariables(vars);
    for (String resource : MAPPERS) {
      try (InputStream in = TxmsgStore.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("mapper resource missing: " + resource);
        }
        new XMLMapperBuilder(in, config, resource, config.getSqlFragments()).parse();
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + resource, e);
      }
    }
    return config;
  }
}
