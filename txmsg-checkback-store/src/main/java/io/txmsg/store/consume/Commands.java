package io.txmsg.store.consume;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;

/**
 * The command outbox ({@code command}): recorded in the handler's transaction, claimed by the
 * dispatcher with an owner token and a lease, every later transition checked against the token.
 * Everything but {@link #record} runs in a short transaction of its own and throws what the
 * database threw.
 */
public final class Commands {
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  public Commands(DataSource dataSource, TxmsgStore store) {
    this.store = store;
    this.transactions = new StoreTransactions(dataSource, store);
  }

  /** Records a command PENDING in the handler's transaction: no command without its event. */
  public void record(Connection c, CommandRow row) {
    store.on(c, CommandMapper.class, m -> m.insert(row));
  }

  /** Due command ids (PENDING and due, or SENDING with an expired lease), read without locks. */
  public List<String> due(int limit) throws Exception {
    return transactions.run(CommandMapper.class, m -> m.selectDue(limit));
  }

  /** Claims one due command for {@code ownerToken}: SENDING with a lease. False when lost. */
  public boolean claim(String commandId, String ownerToken, long leaseMillis) throws Exception {
    return transactions.run(CommandMapper.class, m -> m.claim(commandId, ownerToken, leaseMillis))
        == 1;
  }

  public CommandRow find(String commandId) throws Exception {
    return transactions.run(CommandMapper.class, m -> m.find(commandId));
  }

  /** Executed: DONE. False when the lease was lost meanwhile (another owner calls again). */
  public boolean done(String commandId, String ownerToken) throws Exception {
    return transactions.run(CommandMapper.class, m -> m.done(commandId, ownerToken)) == 1;
  }

  /** Back to PENDING for another attempt {@code delayMillis} from now, with the error. */
  public void retry(String commandId, String ownerToken, long delayMillis, String error)
      throws Exception {
    transactions.run(
        CommandMapper.class,
        m -> m.retry(commandId, ownerToken, CommandStatus.PENDING, delayMillis, error));
  }

  /** PARKED with the error: waits for an operator. */
  public void park(String commandId, String ownerToken, String error) throws Exception {
    transactions.run(CommandMapper.class, m -> m.park(commandId, ownerToken, error));
  }

  /** The commands one handler invocation recorded, by sequence. */
  public List<CommandRow> findByEvent(String group, String eventId) throws Exception {
    return transactions.run(CommandMapper.class, m -> m.findByEvent(group, eventId));
  }
}
