package io.txmsg.consumer;

import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.store.SqlStates;
import java.sql.SQLException;
import java.util.List;

/**
 * Decides whether a failed delivery can succeed later. Permanent: the handler's declared types,
 * {@link PermanentConsumeException}, validation and deserialization errors, and SQL errors that no
 * retry fixes (data exception 22, integrity 23, syntax/access 42). Everything else — timeouts,
 * deadlocks, lost connections, and exceptions nobody classified — is transient: the broker
 * redelivers with backoff and the event is parked only at the attempt limit.
 */
final class FailureClassifier {
  private FailureClassifier() {}

  static boolean isPermanent(Throwable t, List<Class<? extends Throwable>> declared) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      for (Class<? extends Throwable> type : declared) {
        if (type.isInstance(c)) {
          return true;
        }
      }
      if (c instanceof PermanentConsumeException
          || c instanceof InvalidTxMessageException
          || c instanceof PayloadDecodingException) {
        return true;
      }
      if (c == c.getCause()) {
        break;
      }
    }
    SQLException sql = SqlStates.find(t);
    if (sql != null && !SqlStates.isLockTimeout(sql)) {
      String state = sql.getSQLState();
      return state != null
          && (state.startsWith("22") || state.startsWith("23") || state.startsWith("42"));
    }
    return false;
  }
}
