package io.txmsg.store;

import io.txmsg.api.TxMessagingException;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.ibatis.builder.xml.XMLMapperBuilder;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.managed.ManagedTransactionFactory;
import org.apache.ibatis.type.JdbcType;

/**
 * The txmsg tables of one business database: a MyBatis configuration holding the dialect's mapper
 * statements for a table prefix.
 *
 * <p>Sessions are opened on a connection the caller owns ({@link #session(Connection)}): txmsg
 * writes must share the application's transaction, so the store never commits, rolls back or closes
 * a connection itself.
 */
public final class TxmsgStore {
  static final List<String> MAPPERS =
      List.of(
          "AttemptMapper",
          "JournalMapper",
          "ConsumeLogMapper",
          "AggregateVersionMapper",
          "DeadLetterMapper",
          "CommandMapper",
          "OpsQueryMapper",
          "ArchiveMapper",
          "ReplayMapper",
          "SchemaMapper",
          "CdcRelayMapper");

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
   * What a runtime calls at start. With {@code createSchema} it installs the schema, or upgrades it
   * in place, to {@link SchemaInstaller#VERSION} (under a database lock: instances starting
   * together upgrade once); without, it requires exactly that version.
   *
   * @throws SchemaVersionException when the schema is missing or older (and not to be created), or
   *     newer than this release knows; the message names the versions and what to run
   * @throws TxMessagingException when the database cannot be reached or the schema not created (the
   *     cause says why)
   */
  public static TxmsgStore open(DataSource dataSource, String prefix, boolean createSchema) {
    try {
      TxmsgStore store = detect(dataSource, prefix);
      SchemaMigrator schema = new SchemaMigrator(dataSource, store);
      if (createSchema) {
        schema.apply();
      } else {
        schema.verify();
      }
      return store;
    } catch (SchemaVersionException e) {
      throw e; // says what to run already
    } catch (SQLException | RuntimeException e) {
      throw new TxMessagingException(
          "the txmsg tables (prefix " + prefix + ") could not be opened: " + e.getMessage(), e);
    }
  }

  /** Detects the dialect from the DataSource's JDBC metadata. */
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

  /** A MyBatis session on the caller's connection; closing it leaves the connection open. */
  public SqlSession session(Connection connection) {
    return factory.openSession(connection);
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
    config.setLocalCacheScope(org.apache.ibatis.session.LocalCacheScope.STATEMENT);
    Properties vars = new Properties();
    vars.setProperty("prefix", prefix);
    config.setVariables(vars);
    for (String mapper : MAPPERS) {
      String resource = "io/txmsg/store/mapper/" + mapper + ".xml";
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
