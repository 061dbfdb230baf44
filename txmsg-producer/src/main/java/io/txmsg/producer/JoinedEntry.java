package io.txmsg.producer;

import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.transport.HalfMessage;
import java.util.Locale;

/** One event of a joined publish ({@link JoinedPublisher}) and how far it got. */
final class JoinedEntry {
  /** How far an event's writes got in the caller's transaction. */
  enum Stage {
    ATTEMPT_INSERT,
    HALF_SEND,
    JOURNAL_INSERT,
    WRITTEN,
    DUPLICATE;

    String describe() {
      return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
  }

  final TxMessage message;
  final JournalRow row;
  final boolean half;
  Stage stage;
  HalfMessage halfMessage;
  boolean halfSettled;
  RuntimeException failure;

  JoinedEntry(TxMessage message, JournalRow row, boolean half) {
    this.message = message;
    this.row = row;
    this.half = half;
    this.stage = half ? Stage.ATTEMPT_INSERT : Stage.JOURNAL_INSERT;
  }
}
