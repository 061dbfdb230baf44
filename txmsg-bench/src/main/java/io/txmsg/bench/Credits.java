package io.txmsg.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;

/** What the consumers of the consumer and end-to-end sections do with each event. */
final class Credits {
  private Credits() {}

  /** The payload of the consumer benchmarks. */
  public record Paid(String id, int amount, String currency, String account) {}

  /** Inserts the credit row of one event (in the caller's transaction). */
  static void credit(Connection c, String group, String id, Paid p) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO credit (consumer_group, event_id, account, amount) VALUES (?,?,?,?)")) {
      ps.setString(1, group);
      ps.setString(2, id);
      ps.setString(3, p.account());
      ps.setInt(4, p.amount());
      ps.executeUpdate();
    }
  }
}
