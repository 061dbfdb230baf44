package io.txmsg.examples.boot;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

/** The points ledger (Spring Data JPA). */
public interface PointsLedgerRepository extends JpaRepository<PointsLedgerEntry, Long> {
  /** The entries of one event: one once it was applied, never two. */
  List<PointsLedgerEntry> findByEventId(String eventId);
}
