package io.txmsg.store.journal;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.StoreTransactions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Producer instances of one store and their heartbeats (the {@code instance} table, schema V5), and
 * the takeover of a hung instance's committed rows.
 *
 * <p>Why: the broker sends the check-back of a half message to one of the producer connections of
 * its group, and a producer that hangs (GC pause, exhausted pool, SIGSTOP) keeps its connection
 * until the broker expires it, so the check-backs of its own committed events may keep going to it.
 * Those events would then wait for the broker's check timing or for {@code republishAfter}. Each
 * instance beats here with the database clock; when another instance of the store has not beaten
 * for {@code staleMillis}, a live instance makes that instance's committed half-message rows due at
 * once ({@link #takeOver}), and its reconciler republishes them.
 *
 * <p>Republishing a committed row is always safe (a duplicate at worst, which consumers absorb), so
 * a wrong verdict (an instance slow to beat but alive) costs duplicates, never a lost or phantom
 * event. Uncommitted half messages are never touched here: only a check-back can fence them.
 */
public final class InstanceHeartbeats {
  /** Journal rows taken over from one stale instance. */
  public record Takeover(String staleInstance, int rows) {}

  private final StoreTransactions transactions;
  private final String storeId;

  public InstanceHeartbeats(DataSource dataSource, TxmsgStore store, String storeId) {
    this.transactions = new StoreTransactions(dataSource, store);
    this.storeId = storeId;
  }

  /**
   * One beat of {@code instanceId} (registered on its first beat, or again when its row was
   * forgotten after a very long pause).
   */
  public void beat(String instanceId, String host) throws Exception {
    transactions.run(
        InstanceMapper.class,
        m -> m.beat(instanceId) == 1 ? 1 : m.register(instanceId, storeId, truncate(host)));
  }

  /**
   * Takes over the rows of every other instance of the store that has not beaten for {@code
   * staleMillis}: one short transaction per stale instance, which records the pass on the instance
   * row (at most one pass per instance and staleMillis, whichever live instance wins) and makes
   * that instance's PENDING, not yet due HALF_MESSAGE rows due now and owned by {@code self}.
   *
   * @return per stale instance taken over in this call, how many rows became due (0 included)
   */
  public List<Takeover> takeOver(String self, long staleMillis) throws Exception {
    List<String> stale =
        transactions.run(InstanceMapper.class, m -> m.selectStale(storeId, self, staleMillis));
    Map<String, Integer> done = new LinkedHashMap<>();
    for (String instance : stale) {
      String note =
          "instance "
              + instance
              + " missed its heartbeats for "
              + staleMillis
              + " ms; republished by instance "
              + self;
      Integer rows =
          transactions.run(
              c -> {
                TxmsgStore store = transactions.store();
                if (store.on(
                        c, InstanceMapper.class, m -> m.claimTakeover(instance, self, staleMillis))
                    != 1) {
                  return null;
                }
                return store.on(
                    c,
                    JournalMapper.class,
                    m -> m.takeOverInstance(storeId, instance, self, truncate(note)));
              });
      if (rows != null) {
        done.put(instance, rows);
      }
    }
    return done.entrySet().stream().map(e -> new Takeover(e.getKey(), e.getValue())).toList();
  }

  /** Forgets the store's instances that have not beaten for {@code maxAgeMillis}. */
  public int forgetOlderThan(long maxAgeMillis) throws Exception {
    return transactions.run(InstanceMapper.class, m -> m.deleteOlder(storeId, maxAgeMillis));
  }

  /** Milliseconds since {@code instanceId}'s last beat, by the database clock; null if unknown. */
  public Long beatAgeMillis(String instanceId) throws Exception {
    return transactions.run(InstanceMapper.class, m -> m.beatAgeMillis(instanceId));
  }

  private static String truncate(String s) {
    return s == null || s.length() <= 255 ? s : s.substring(0, 255);
  }
}
