package io.txmsg.api;

import java.util.Set;

/**
 * Answers the broker's check-back for a half message from DURABLE state, never from memory: the
 * asking broker may reach a different producer instance than the one that sent it, or one that
 * restarted.
 *
 * <p>Contract: return {@link Resolution#COMMIT} only if the fact is committed, {@link
 * Resolution#ROLLBACK} only if it can never commit, {@link Resolution#UNKNOWN} otherwise. An
 * exception is treated as UNKNOWN (logged, never thrown into the client). The default {@code
 * JournalCheckbackResolver} reads the txmsg attempt and journal tables and fences attempts that
 * never reached the database; register your own (e.g. one that reads an order-status table) as a
 * bean, routed by {@link #topics()} and {@link #eventTypes()}.
 */
public interface CheckbackResolver {
  Resolution resolve(CheckbackRequest request);

  /** Topics this resolver answers for; empty = any topic. */
  default Set<String> topics() {
    return Set.of();
  }

  /** Event types this resolver answers for; empty = any type. */
  default Set<String> eventTypes() {
    return Set.of();
  }
}
