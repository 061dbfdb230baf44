package io.txmsg.store.cdc;

import io.txmsg.store.Dialect;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StoreTransactions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The CDC relay's durable state and journal updates, each in a short transaction of its own (never
 * the application's): the lease that makes one relay per store, the offsets and schema history
 * Debezium stores through it, and the SENT / DEAD updates of relayed rows. Every write takes the
 * writer's {@link RelayFence}; a write of a relay that lost the lease changes nothing, which the
 * methods report as {@code false} or 0.
 *
 * <p>Failures are the database's: every method throws what the statement threw (the transaction was
 * rolled back); nothing here retries.
 */
public final class CdcRelayStore {
  /** PostgreSQL identifiers txmsg creates or names: unquoted, lower case. */
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private final StoreTransactions tx;
  private final TxmsgStore store;

  public CdcRelayStore(DataSource dataSource, TxmsgStore store) {
    this.tx = new StoreTransactions(dataSource, store);
    this.store = store;
  }

  public TxmsgStore store() {
    return store;
  }

  /**
   * Takes the store's lease when nobody holds it (never taken, released, or expired): generation +
   * 1, until the database's now + {@code lease}.
   *
   * @return the new holder's fence, or empty when another instance holds a live lease
   */
  public Optional<RelayFence> tryAcquire(
      String storeId, String ownerToken, Duration lease, String ownerInfo) throws Exception {
    long millis = lease.toMillis();
    int taken = run(m -> m.takeLease(storeId, ownerToken, millis, ownerInfo));
    if (taken == 0) {
      RelayLeaseRow row = lease(storeId);
      if (row != null) {
        return Optional.empty();
      }
      try {
        run(m -> m.insertLease(storeId, ownerToken, millis, ownerInfo));
      } catch (Exception e) {
        if (SqlStates.isDuplicateKey(e)) {
          return Optional.empty(); // another instance created it first, and holds it
        }
        throw e;
      }
    }
    RelayLeaseRow row = lease(storeId);
    if (row == null || !ownerToken.equals(row.getOwnerToken())) {
      return Optional.empty(); // taken over at once (a lease shorter than this round trip)
    }
    return Optional.of(new RelayFence(storeId, ownerToken, row.getGeneration()));
  }

  /** Extends the lease; false when it was taken over (the holder must stop before any write). */
  public boolean renew(RelayFence f, Duration lease) throws Exception {
    long millis = lease.toMillis();
    return run(m -> m.renewLease(f.storeId(), f.ownerToken(), f.generation(), millis)) == 1;
  }

  /** Gives the lease up so that another instance takes it at once; false when it was not held. */
  public boolean release(RelayFence f) throws Exception {
    return run(m -> m.releaseLease(f.storeId(), f.ownerToken(), f.generation())) == 1;
  }

  /** The lease row, or null when no relay ever ran for the store. */
  public RelayLeaseRow lease(String storeId) throws Exception {
    return run(m -> m.selectLease(storeId));
  }

  /** Whether {@code f} is still the lease row's owner and generation. */
  public boolean holds(RelayFence f) throws Exception {
    RelayLeaseRow row = lease(f.storeId());
    return row != null
        && f.ownerToken().equals(row.getOwnerToken())
        && row.getGeneration() == f.generation();
  }

  /** The stored offsets (JSON), or null: start at the current end of the log. */
  public String offsets(String storeId) throws Exception {
    return run(m -> m.selectOffsets(storeId));
  }

  /**
   * Stores the offsets ({@code null} clears them).
   *
   * @return false when the fence no longer holds (nothing was written)
   */
  public boolean writeOffsets(RelayFence f, String offsets) throws Exception {
    return tx.run(
        CdcRelayMapper.class,
        m -> {
          if (m.updateOffsets(f.storeId(), f.ownerToken(), f.generation(), offsets) == 1) {
            return true;
          }
          if (m.selectOffsets(f.storeId()) != null) {
            return false; // the row exists: the update was fenced
          }
          return m.insertOffsets(f.storeId(), f.ownerToken(), f.generation(), offsets) == 1
              || m.updateOffsets(f.storeId(), f.ownerToken(), f.generation(), offsets) == 1;
        });
  }

  /** The schema history records in the order they were stored. */
  public List<String> history(String storeId) throws Exception {
    return run(m -> m.selectHistory(storeId));
  }

  /** The seq the next history record gets. */
  public long nextHistorySeq(String storeId) throws Exception {
    Long max = run(m -> m.maxHistorySeq(storeId));
    return max == null ? 1 : max + 1;
  }

  /**
   * Appends one schema history record at {@code seq}.
   *
   * @return false when the fence no longer holds (nothing was written)
   */
  public boolean appendHistory(RelayFence f, long seq, String record) throws Exception {
    return run(m -> m.insertHistory(f.storeId(), f.ownerToken(), f.generation(), seq, record)) == 1;
  }

  /**
   * Deletes the store's schema history (a relay that restarts at the current position records it
   * anew).
   *
   * @return false when the fence no longer holds (nothing was deleted)
   */
  public boolean clearHistory(RelayFence f) throws Exception {
    return tx.run(
        CdcRelayMapper.class,
        m -> {
          RelayLeaseRow row = m.selectLease(f.storeId());
          if (row == null
              || !f.ownerToken().equals(row.getOwnerToken())
              || row.getGeneration() != f.generation()) {
            return false;
          }
          m.deleteHistory(f.storeId(), f.ownerToken(), f.generation());
          return true;
        });
  }

  /**
   * Records sends the broker accepted: the CDC rows among these that are not SENT yet become SENT
   * with their message ids, in one statement.
   *
   * @param brokerMessageIds event id → broker message id
   * @return the rows updated (0 also when fenced: ask {@link #holds}; fewer also for rows not
   *     visible yet: ask {@link #settledAmong})
   */
  public int markSent(RelayFence f, Map<String, String> brokerMessageIds) throws Exception {
    if (brokerMessageIds.isEmpty()) {
      return 0;
    }
    return run(m -> m.markSent(f.storeId(), f.ownerToken(), f.generation(), brokerMessageIds));
  }

  /**
   * The rows among these that are settled (SENT, DEAD): the others are unsent, or their insert is
   * not visible to a new transaction yet. PostgreSQL hands a committed change to logical decoding
   * as soon as its commit record is flushed, a moment before other sessions see the commit; an
   * UPDATE in that moment does not see the row (MariaDB's waits for the row lock instead).
   */
  public java.util.Set<String> settledAmong(java.util.Collection<String> eventIds)
      throws Exception {
    if (eventIds.isEmpty()) {
      return java.util.Set.of();
    }
    return new java.util.HashSet<>(run(m -> m.settledAmong(eventIds)));
  }

  /** The journal row's status, or null when there is none or it is not visible yet. */
  public JournalStatus journalStatus(String eventId) throws Exception {
    return run(m -> m.journalStatus(eventId));
  }

  /**
   * A send the broker refused for good: the PENDING CDC row becomes DEAD with the error.
   *
   * @return 1, or 0 when the row is not PENDING (the reconciler settled it), not visible yet, or
   *     the fence no longer holds (ask {@link #holds}, {@link #journalStatus})
   */
  public int markDead(RelayFence f, String eventId, String errorCode, String errorMessage)
      throws Exception {
    String message =
        errorMessage == null || errorMessage.length() <= 1000
            ? errorMessage
            : errorMessage.substring(0, 1000);
    return run(
        m -> m.markDead(f.storeId(), f.ownerToken(), f.generation(), eventId, errorCode, message));
  }

  /**
   * The rows that hold a FIFO row back (the order rule of docs/architecture.md, "Per-aggregate
   * order"): unsent or DEAD lower versions of its aggregate, and other rows of its message group in
   * flight. Empty: it may go.
   */
  public List<String> orderBlockers(
      String storeId,
      String eventId,
      String aggregateType,
      String aggregateId,
      long aggregateVersion,
      String messageGroup)
      throws Exception {
    return run(
        m ->
            m.orderBlockers(
                storeId, eventId, aggregateType, aggregateId, aggregateVersion, messageGroup));
  }

  /**
   * Creates the relay's PostgreSQL publication: inserts of {@code schema.table} only.
   *
   * @throws IllegalArgumentException when a name is not a plain lower-case identifier
   */
  public void createPublication(String name, String schema, String table) throws Exception {
    String qualified = identifier(schema) + "." + identifier(table);
    String pub = identifier(name);
    run(
        m -> {
          m.createPublication(pub, qualified);
          return null;
        });
  }

  /** The statement {@link #createPublication} runs, for messages that ask an operator to run it. */
  public static String createPublicationStatement(String name, String schema, String table) {
    return "CREATE PUBLICATION "
        + name
        + " FOR TABLE "
        + schema
        + "."
        + table
        + " WITH (publish = 'insert')";
  }

  /**
   * @throws IllegalArgumentException naming the value when it is not a plain lower-case identifier
   */
  public static String identifier(String name) {
    if (name == null || !IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "'" + name + "' is not a plain identifier ([a-z_][a-z0-9_]{0,62})");
    }
    return name;
  }

  /** The slot a relay of {@code storeId} uses when none is configured: one per store. */
  public static String defaultSlotName(String storeId) {
    String name = "txmsg_relay_" + storeId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    return name.length() <= 63 ? name : name.substring(0, 63);
  }

  /** The store's CDC rows not SENT yet (count, oldest), by the database clock. */
  public CdcBacklog backlog(String storeId) throws Exception {
    return run(m -> m.cdcBacklog(storeId));
  }

  /** PostgreSQL: the slot's lag in bytes; empty when the slot does not exist. */
  public Optional<SlotLag> slotLag(String slot) throws Exception {
    return Optional.ofNullable(run(m -> m.slotLag(slot)));
  }

  /** What {@link #resetPosition} did. */
  public record Reset(boolean leaseHeld, int offsetRows, int historyRows, boolean slotDropped) {}

  /**
   * An operator's reset: the store's relay restarts at the current end of the log. Deletes the
   * stored offsets and schema history and, on PostgreSQL, drops {@code slot} (a slot keeps its
   * position without offsets); the relay creates it again at its next start. Refused (nothing
   * changed, {@code leaseHeld}) while a relay holds a live lease: stop every relay of the store
   * first. Rows committed before the new position are left to the reconciler's fallback.
   *
   * @throws Exception what the database threw; on PostgreSQL also when the slot is in use by a
   *     reader that holds no lease (a stalled relay's walsender: wait for wal_sender_timeout)
   */
  public Reset resetPosition(String storeId, String slot) throws Exception {
    String slotName = store.dialect() == Dialect.POSTGRESQL ? identifier(slot) : null;
    if (run(m -> m.liveLeases(storeId)) > 0) {
      return new Reset(true, 0, 0, false);
    }
    // Each delete re-checks the lease: a relay that starts meanwhile keeps its state.
    int offsets = run(m -> m.clearOffsetsUnleased(storeId));
    int history = run(m -> m.clearHistoryUnleased(storeId));
    boolean dropped = false;
    if (slotName != null && slotLag(slotName).isPresent()) {
      // Fails while a reader is attached (the server refuses to drop an active slot).
      run(
          m -> {
            m.dropSlot(slotName);
            return null;
          });
      dropped = true;
    }
    return new Reset(false, offsets, history, dropped);
  }

  /**
   * Any other statement of {@link CdcRelayMapper} (server settings, slots) in its own transaction.
   */
  public <T> T run(StoreTransactions.MapperWork<CdcRelayMapper, T> work) throws Exception {
    return tx.run(CdcRelayMapper.class, work);
  }
}
