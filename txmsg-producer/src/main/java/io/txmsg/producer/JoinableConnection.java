package io.txmsg.producer;

import io.txmsg.api.TransactionNotJoinableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Finds the JDBC connection of the caller's Spring transaction that a joined publish ({@link
 * JoinedPublisher}) writes on, or refuses with a message naming what was found. Loaded only when
 * spring-tx and spring-jdbc are on the class path.
 */
final class JoinableConnection {
  private static final String DATA_SOURCE_UTILS_SYNCHRONIZATION =
      "org.springframework.jdbc.datasource.DataSourceUtils$ConnectionSynchronization";

  private final DataSource dataSource;
  private final List<Object> resourceKeys;

  JoinableConnection(DataSource dataSource) {
    this.dataSource = dataSource;
    this.resourceKeys = resourceKeys(dataSource);
  }

  /**
   * The keys a transaction manager may have bound txmsg's DataSource's connection under: the
   * DataSource itself, and the targets it wraps (a TransactionAwareDataSourceProxy bean over the
   * pool the transaction manager runs on).
   */
  private static List<Object> resourceKeys(DataSource dataSource) {
    List<Object> keys = new ArrayList<>(2);
    DataSource ds = dataSource;
    while (ds != null && !keys.contains(ds)) {
      keys.add(ds);
      ds = ds instanceof DelegatingDataSource d ? d.getTargetDataSource() : null;
    }
    return keys;
  }

  /**
   * The pool itself, the innermost DataSource: a TransactionAwareDataSourceProxy would hand
   * afterCompletion's settlement the ended transaction's connection, still bound at that point.
   */
  DataSource pool() {
    return (DataSource) resourceKeys.get(resourceKeys.size() - 1);
  }

  /** The connection of the caller's transaction, or a refusal naming what was found. */
  Connection current() {
    ConnectionHolder holder = null;
    for (Object key : resourceKeys) {
      if (TransactionSynchronizationManager.getResource(key) instanceof ConnectionHolder h) {
        holder = h;
        break;
      }
    }
    if (!TransactionSynchronizationManager.isSynchronizationActive() && holder != null) {
      // A transaction manager set to SYNCHRONIZATION_NEVER binds its connection but marks no
      // transaction active and runs no callbacks.
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found a connection of txmsg's DataSource bound to a"
              + " transaction without transaction synchronization (a transaction manager set to"
              + " SYNCHRONIZATION_NEVER?): no callback would commit or roll back the half message"
              + " or send the event after it ends");
    }
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish needs an active transaction (it is MANDATORY), and none is"
              + " active on this thread: call it inside a @Transactional method or a"
              + " TransactionTemplate (or use execute, which runs its own transaction)");
    }
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found an active transaction without transaction"
              + " synchronization: no callback would commit or roll back the half message after"
              + " it ends");
    }
    if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found a read-only transaction"
              + describeTransaction()
              + ": its business changes may be dropped (Hibernate does not flush a read-only"
              + " transaction) while txmsg's rows would commit, an event without its fact");
    }
    if (holder == null || holder.getConnectionHandle() == null) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found no JDBC connection of txmsg's DataSource ("
              + dataSource
              + ") bound to the active transaction"
              + describeTransaction()
              + "; bound resources: "
              + describeResources()
              + ". It joins a transaction manager that binds a connection of that DataSource"
              + " (DataSourceTransactionManager, JdbcTransactionManager, JpaTransactionManager"
              + " with Hibernate); JTA, a JPA dialect that exposes no connection, or a"
              + " transaction manager of another DataSource cannot be joined");
    }
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s.getClass().getName().equals(DATA_SOURCE_UTILS_SYNCHRONIZATION)) {
        // DataSourceUtils bound this connection for a transaction that is not a JDBC resource
        // transaction of this DataSource (JTA, or a transaction manager of another resource): its
        // commit is not this connection's commit.
        throw new TransactionNotJoinableException(
            "TxMessageTemplate.publish found txmsg's DataSource's connection bound by"
                + " DataSourceUtils for the transaction"
                + describeTransaction()
                + ", not by its transaction manager: the transaction is JTA or managed for"
                + " another resource (bound resources: "
                + describeResources()
                + "); use DataSourceTransactionManager, JdbcTransactionManager or"
                + " JpaTransactionManager over txmsg's DataSource");
      }
    }
    Connection c = holder.getConnection();
    boolean autoCommit;
    try {
      autoCommit = c.getAutoCommit();
    } catch (SQLException e) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish could not read the bound connection's auto-commit mode: " + e);
    }
    if (autoCommit) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found the connection bound to the transaction"
              + describeTransaction()
              + " in auto-commit mode: its rows would commit at once, whatever the transaction"
              + " then does");
    }
    return c;
  }

  private static String describeTransaction() {
    String name = TransactionSynchronizationManager.getCurrentTransactionName();
    return name == null ? "" : " (" + name + ")";
  }

  private static String describeResources() {
    Map<Object, Object> bound = TransactionSynchronizationManager.getResourceMap();
    if (bound.isEmpty()) {
      return "none (a JTA transaction binds no JDBC connection)";
    }
    List<String> out = new ArrayList<>(bound.size());
    for (Map.Entry<Object, Object> b : bound.entrySet()) {
      out.add(b.getValue().getClass().getSimpleName() + " for " + b.getKey());
    }
    return String.join(", ", out);
  }
}
