package io.txmsg.consumer;

import io.txmsg.api.consumer.Command;
import io.txmsg.api.consumer.CommandExecutor;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.store.consume.CommandRow;
import io.txmsg.store.consume.Commands;
import io.txmsg.transport.Backoff;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes the command outbox after the handlers' commits: claims due commands with an owner token
 * and a lease (short transactions), calls the executor of the command's type with the idempotency
 * key, and records DONE, a retry with exponential backoff, or PARKED. A command is never marked
 * DONE before its call returned; a crash in between leaves it SENDING until the lease expires and
 * another dispatcher calls again with the same key.
 */
final class CommandDispatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CommandDispatcher.class);

  private final Commands commands;
  private final Map<String, CommandExecutor> executors;
  private final TxConsumerSettings settings;
  private final Backoff backoff;
  private final String ownerToken = UUID.randomUUID().toString();
  private final Semaphore wakeUp = new Semaphore(0);
  private final Thread thread;
  private volatile boolean running = true;

  CommandDispatcher(
      Commands commands, Map<String, CommandExecutor> executors, TxConsumerSettings s) {
    this.commands = commands;
    this.executors = executors;
    this.settings = s;
    // The exact doubling without jitter, as the command backoff setting is documented.
    this.backoff =
        Backoff.exponential(s.commandBackoffInitial(), s.commandBackoffMax()).withoutJitter();
    this.thread = new Thread(this::loop, "txmsg-command-dispatcher");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** A handler committed commands: run a round now instead of at the next poll. */
  void signal() {
    wakeUp.release();
  }

  private void loop() {
    while (running) {
      try {
        int n = runOnce();
        if (n < settings.commandBatchSize()) {
          wakeUp.tryAcquire(settings.commandPollInterval().toMillis(), TimeUnit.MILLISECONDS);
          wakeUp.drainPermits();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        log.warn("command round failed: {}", e.toString());
        sleepQuietly();
      }
    }
  }

  /** One round: claims and executes up to a batch of due commands; returns how many it claimed. */
  int runOnce() throws Exception {
    List<String> due = commands.due(settings.commandBatchSize());
    int claimed = 0;
    for (String id : due) {
      if (commands.claim(id, ownerToken, settings.commandLease().toMillis())) {
        claimed++;
        execute(commands.find(id));
      }
    }
    return claimed;
  }

  private void execute(CommandRow row) throws Exception {
    Command command =
        new Command(
            row.getCommandId(),
            row.getConsumerGroup() + ":" + row.getEventId() + ":" + row.getSeq(),
            row.getConsumerGroup(),
            row.getEventId(),
            row.getSeq(),
            row.getCommandType(),
            row.getPayload(),
            row.getAttempts());
    CommandExecutor executor = executors.get(row.getCommandType());
    String id = row.getCommandId();
    if (executor == null) {
      String error = "no executor registered for command type " + row.getCommandType();
      commands.park(id, ownerToken, error);
      log.error("command parked key={} {}", command.idempotencyKey(), error);
      return;
    }
    try {
      executor.execute(command);
    } catch (Exception | Error e) {
      String error = Parking.truncate(e.toString(), 1000);
      if (e instanceof PermanentConsumeException
          || row.getAttempts() >= settings.commandMaxAttempts()) {
        commands.park(id, ownerToken, error);
        log.error(
            "command parked key={} type={} attempts={}: {}",
            command.idempotencyKey(),
            row.getCommandType(),
            row.getAttempts(),
            error);
      } else {
        long delay = backoffMillis(row.getAttempts());
        commands.retry(id, ownerToken, delay, error);
        log.info(
            "command retry key={} attempt={} in {} ms: {}",
            command.idempotencyKey(),
            row.getAttempts(),
            delay,
            error);
      }
      return;
    }
    if (!commands.done(id, ownerToken)) {
      // The lease expired during the call and someone else owns it now: they will call again with
      // the same idempotency key, which the external system deduplicates.
      log.warn("command done but lease lost key={}", command.idempotencyKey());
    }
  }

  long backoffMillis(int attempts) {
    return backoff.millis(attempts);
  }

  private static void sleepQuietly() {
    try {
      Thread.sleep(500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
