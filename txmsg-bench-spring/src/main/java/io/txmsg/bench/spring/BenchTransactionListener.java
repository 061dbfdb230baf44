package io.txmsg.bench.spring;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.spring.annotation.RocketMQTransactionListener;
import org.apache.rocketmq.spring.core.RocketMQLocalTransactionListener;
import org.apache.rocketmq.spring.core.RocketMQLocalTransactionState;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.messaging.Message;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The usual rocketmq-spring pattern: the local transaction inserts the business row and a tx-log
 * row in one JDBC transaction; the check-back looks the tx-log row up.
 */
@RocketMQTransactionListener
public class BenchTransactionListener implements RocketMQLocalTransactionListener {
  /** Check-backs answered, for the report's per-variant counts. */
  static final AtomicLong CHECKBACKS = new AtomicLong();

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;

  public BenchTransactionListener(JdbcTemplate jdbc, TransactionTemplate tx) {
    this.jdbc = jdbc;
    this.tx = tx;
  }

  @Override
  public RocketMQLocalTransactionState executeLocalTransaction(Message msg, Object arg) {
    String id = (String) arg;
    try {
      tx.executeWithoutResult(
          s -> {
            jdbc.update("INSERT INTO payment (id, amount) VALUES (?, ?)", id, 100);
            jdbc.update("INSERT INTO tx_log (tx_id, created_at) VALUES (?, CURRENT_TIMESTAMP)", id);
          });
    } catch (RuntimeException e) {
      return RocketMQLocalTransactionState.ROLLBACK;
    }
    if (SpringBenchApp.e2e != null) {
      SpringBenchApp.COMMITTED_AT.put(id, System.nanoTime());
    }
    return RocketMQLocalTransactionState.COMMIT;
  }

  @Override
  public RocketMQLocalTransactionState checkLocalTransaction(Message msg) {
    CHECKBACKS.incrementAndGet();
    Object id = msg.getHeaders().get("eid");
    if (id == null) {
      return RocketMQLocalTransactionState.UNKNOWN;
    }
    Integer n =
        jdbc.queryForObject(
            "SELECT COUNT(*) FROM tx_log WHERE tx_id = ?", Integer.class, id.toString());
    return n != null && n > 0
        ? RocketMQLocalTransactionState.COMMIT
        : RocketMQLocalTransactionState.UNKNOWN;
  }
}
