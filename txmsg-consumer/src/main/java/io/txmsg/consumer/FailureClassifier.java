package io.txmsg.consumer;

import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.store.tx.SqlStates;
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
    return SqlStates.isPermanent(t);
  }
}
