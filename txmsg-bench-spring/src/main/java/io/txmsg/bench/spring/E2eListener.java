package io.txmsg.bench.spring;

import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The e2e consumer: one credit row per message in its own transaction, no deduplication. Latency is
 * taken after that commit.
 */
@Component
@RocketMQMessageListener(
    topic = "${bench.e2e-topic}",
    consumerGroup = "${bench.e2e-group}",
    consumeThreadNumber = 8)
public class E2eListener implements RocketMQListener<MessageExt> {
  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;

  public E2eListener(JdbcTemplate jdbc, TransactionTemplate tx) {
    this.jdbc = jdbc;
    this.tx = tx;
  }

  @Override
  public void onMessage(MessageExt message) {
    String id = message.getUserProperty("eid");
    tx.executeWithoutResult(
        s -> jdbc.update("INSERT INTO credit (event_id, amount) VALUES (?, ?)", id, 100));
    long now = System.nanoTime(); // the consumer's transaction has committed
    SpringBenchApp.E2eRun run = SpringBenchApp.e2e;
    if (run != null && id != null) {
      run.handled(id, now);
    }
  }
}
