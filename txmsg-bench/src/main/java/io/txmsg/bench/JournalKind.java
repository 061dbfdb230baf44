package io.txmsg.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * The journal a hand-written baseline writes in its local transaction, next to the business row,
 * and answers its check-backs from.
 */
enum JournalKind {
  /** No database at all: the broker-alone variant (dr). */
  NONE,
  /**
   * {@code raw_journal}, the narrow journal of (b), (br), (f) and (d) ({@link
   * Sql#rawJournalTable()}).
   */
  RAW,
  /** {@code hand_journal}, txmsg's journal shape, of (b+), (br+) and (c) ({@link HandJournal}). */
  HAND;

  /** The business row and this journal's row of event {@code id}, one JDBC transaction. */
  void localTransaction(BenchMain b, String topic, String id) throws Exception {
    if (this == NONE) {
      return;
    }
    try (Connection c = b.ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        BenchMain.insertPayment(c, id);
        if (this == RAW) {
          RawClient.insertJournal(c, topic, id);
        } else {
          HandJournal.insert(c, topic, id);
        }
        c.commit();
      } catch (Exception e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** Whether the row of {@code id} is there (a check-back: COMMIT if so). */
  boolean exists(BenchMain b, String id) throws Exception {
    if (this == NONE) {
      return true;
    }
    String table = this == RAW ? "raw_journal" : HandJournal.TABLE;
    try (Connection c = b.ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT status FROM " + table + " WHERE event_id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}
