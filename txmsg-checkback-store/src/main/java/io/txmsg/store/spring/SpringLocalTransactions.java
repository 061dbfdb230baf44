package io.txmsg.store.spring;

import io.txmsg.store.LocalTransactions;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Local transactions through Spring's {@link PlatformTransactionManager}: the connection the action
 * gets is the one bound to the transaction, so the application's MyBatis mappers (mybatis-spring)
 * and JdbcTemplate calls on the same DataSource join the journal insert.
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
    try {
      result = work.run(DataSourceUtils.getConnection(dataSource));
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

  @Override
  public boolean inActiveTransaction() {
    return TransactionSynchronizationManager.isActualTransactionActive();
  }
}
