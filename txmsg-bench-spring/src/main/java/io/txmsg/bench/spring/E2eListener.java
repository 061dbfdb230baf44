package io.txmsg.bench.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.spring.annotation.RocketMQMessageListener;
import org.apache.rocketmq.spring.core.RocketMQListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The e2e consumer: decodes the JSON payload and inserts the credit row in its own transaction, no
 * deduplication, as the raw consumers of txmsg-bench do (same {@code credit} table, same columns).
 * Latency is taken after that commit.
 */
@Component
@RocketMQMessageListener(
    topic = "${bench.e2e-topic}",
    consumerGroup = "${bench.e2e-group}",
    consumeThreadNumber = 8)
public class E2eListener implements RocketMQListener<MessageExt> {
  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private final String group;
  private final ObjectMapper json = new ObjectMapper();

  public E2eListener(
      JdbcTemplate jdbc, TransactionTemplate tx, @Value("${bench.e2e-group}") String group) {
    this.jdbc = jdbc;
    this.tx = tx;
    this.group = group;
  }

  @Override
  public void onMessage(MessageExt message) {
    String id = message.getUserProperty("eid");
    JsonNode paid;
    try {
      paid = json.readTree(message.getBody());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // redelivered, as a raw consumer's FAILURE
    }
    tx.executeWithoutResult(
        s ->
            jdbc.update(
                "INSERT INTO credit (consumer_group, event_id, account, amount) VALUES (?,?,?,?)",
                group,
                id,
                paid.get("account").asText(),
                paid.get("amount").asInt()));
    long now = System.nanoTime(); // the consumer's transaction has committed
    SpringBenchApp.E2eRun run = SpringBenchApp.e2e;
    if (run != null && id != null) {
      run.handled(id, now);
    }
  }
}
