package io.txmsg.api.consumer;

/**
 * Executes one type of command after the handler's transaction committed. Returning normally marks
 * the command DONE. Throwing {@link PermanentConsumeException} parks it; any other exception is
 * retried with backoff up to the dispatcher's max attempts, then parked. The same command can be
 * executed more than once (a crash after the call and before DONE is recorded), always with the
 * same idempotency key.
 */
@FunctionalInterface
public interface CommandExecutor {
  void execute(Command command) throws Exception;
}
