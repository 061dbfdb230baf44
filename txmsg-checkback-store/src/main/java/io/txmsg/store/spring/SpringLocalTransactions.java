package io.txmsg.store.spring;

import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.store.tx.LocalTransactions;
import io.txmsg.store.tx.StatementFailures;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Local transactions through Spring's {@link PlatformTransactionManager}: the connection the work
 * gets is the one bound to the transaction, so the application's MyBatis mappers (mybatis-spring)
 * and JdbcTemplate calls join the journal insert.
 *
 * <p>For the transaction, its {@link ConnectionHolder} is swapped for one holding an observed view
 * of the same connection ({@link StatementFailures}), so a failed statement the application's code
 * swallows is seen too. The holder is looked up under the transaction manager's own resource key
 * (its DataSource), not the application's DataSource bean, which may be a wrapper: what
 * mybatis-spring and JdbcTemplate find is what the transaction manager bound. The application's
 * DataSource bean is never replaced.
 */
public final class SpringLocalTransactions implements LocalTransactions {
  private final PlatformTransactionManager transactionManager;
  private final DataSource dataSource;

  public SpringLocalTransactions(
      PlatformTransactionManager transactionManager, DataSource dataSource) {
    this.transactionManager = transactionManager;
    this.dataSource = dataSource;
  }

  @Override
  public <T> T inTransaction(Work<T> work, int isolationLevel)
      throws WorkFailedException, CommitFailedException {
    TransactionStatus status;
    try {
      DefaultTransactionDefinition definition = new DefaultTransactionDefinition();
      // Spring's ISOLATION_* constants are the JDBC values; -1 is ISOLATION_DEFAULT in both.
      definition.setIsolationLevel(isolationLevel);
      status = transactionManager.getTransaction(definition);
    } catch (TransactionException e) {
      throw new WorkFailedException(e);
    }
    T result;
    ConnectionHolder[] swapped = {null};
    try {
      result = work.run(observe(status, swapped));
      if (status.isRollbackOnly() || (swapped[0] != null && swapped[0].isRollbackOnly())) {
        // A participating transaction (PROPAGATION_REQUIRED inside the work) failed and marked
        // the whole transaction rollback-only, even if the work caught its exception. Spring's
        // commit would roll back; with the swapped holder it would not see the mark at all.
        // Either way the work's rows are not committed: say so instead of reporting success.
        throw new TransactionRolledBackException(
            "the transaction was marked rollback-only inside the work (a participating"
                + " transaction failed and its exception was caught); it is rolled back, nothing"
                + " is committed",
            null);
      }
    } catch (Exception | Error e) {
      try {
        transactionManager.rollback(status);
      } catch (TransactionException re) {
        e.addSuppressed(re);
      }
      throw new WorkFailedException(e);
    }
    try {
      transactionManager.commit(status);
    } catch (TransactionException e) {
      throw new CommitFailedException(e);
    }
    return result;
  }

  /**
   * Binds a holder with the observed view in place of the transaction's own until the transaction
   * ends: the transaction manager unbinds it at cleanup (it unbinds its resource key, whatever is
   * bound) and releases its own holder's connection. It must stay bound through commit: at commit
   * mybatis-spring releases the connection it got, and a holder that no longer holds that same
   * object would make Spring close the connection before the commit.
   */
  private Connection observe(TransactionStatus status, ConnectionHolder[] swappedOut) {
    Object key =
        transactionManager instanceof ResourceTransactionManager r
            ? r.getResourceFactory()
            : dataSource;
    Object bound = key == null ? null : TransactionSynchronizationManager.getResource(key);
    if (!status.isNewTransaction() || !(bound instanceof ConnectionHolder original)) {
      // Not a JDBC resource transaction of our own (e.g. JTA): observe what txmsg itself uses;
      // the application's statements may go through another view of it.
      return StatementFailures.observeOwnStatementsOnly(DataSourceUtils.getConnection(dataSource));
    }
    Connection observed = StatementFailures.observe(original.getConnection());
    ConnectionHolder swapped = new ConnectionHolder(observed, true);
    swapped.setSynchronizedWithTransaction(true);
    swappedOut[0] = swapped;
    TransactionSynchronizationManager.unbindResource(key);
    TransactionSynchronizationManager.bindResource(key, swapped);
    return observed;
  }

  @Override
  public boolean inActiveTransaction() {
    return TransactionSynchronizationManager.isActualTransactionActive();
  }
}
