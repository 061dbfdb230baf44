package io.txmsg.consumer;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.store.consume.CommandRow;
import io.txmsg.store.consume.Commands;
import io.txmsg.store.tx.StatementFailures;
import io.txmsg.transport.IncomingEvent;
import java.sql.Connection;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** The {@link ConsumeContext} of one handler invocation, bound to its transaction. */
final class HandlerContext implements ConsumeContext {
  private final String group;
  private final IncomingEvent event;
  private final boolean replay;
  private final Connection connection;
  private final Commands commands;
  private int commandSeq;
  private String resultRef;

  HandlerContext(
      String group, IncomingEvent event, boolean replay, Connection connection, Commands commands) {
    this.group = group;
    this.event = event;
    this.replay = replay;
    this.connection = connection;
    this.commands = commands;
  }

  @Override
  public String consumerGroup() {
    return group;
  }

  @Override
  public String eventId() {
    return event.eventId();
  }

  @Override
  public String eventType() {
    return event.eventType();
  }

  @Override
  public int eventVersion() {
    return event.eventVersion();
  }

  @Override
  public String aggregateType() {
    return event.aggregateType();
  }

  @Override
  public String aggregateId() {
    return event.aggregateId();
  }

  @Override
  public long aggregateVersion() {
    return event.aggregateVersion();
  }

  @Override
  public String businessKey() {
    return event.businessKey();
  }

  @Override
  public Instant originTime() {
    return event.originTime();
  }

  @Override
  public int deliveryAttempt() {
    return replay ? 0 : event.deliveryAttempt();
  }

  @Override
  public boolean replay() {
    return replay;
  }

  @Override
  public Map<String, String> headers() {
    return event.headers();
  }

  @Override
  public String idempotencyKey() {
    return group + ":" + event.eventId();
  }

  @Override
  public String recordCommand(String commandType, byte[] payload) {
    if (commandType == null || commandType.isBlank() || commandType.length() > 64) {
      throw new IllegalArgumentException("commandType must be 1..64 characters: " + commandType);
    }
    CommandRow row = new CommandRow();
    row.setCommandId(UUID.randomUUID().toString());
    row.setConsumerGroup(group);
    row.setEventId(event.eventId());
    row.setSeq(++commandSeq);
    row.setCommandType(commandType);
    row.setPayload(payload);
    commands.record(connection, row); // in the handler's transaction: no command without its event
    return idempotencyKey() + ":" + commandSeq;
  }

  @Override
  public void resultRef(String resultRef) {
    if (resultRef != null && resultRef.length() > 256) {
      throw new IllegalArgumentException("resultRef is limited to 256 characters");
    }
    this.resultRef = resultRef;
  }

  String resultRef() {
    return resultRef;
  }

  boolean recordedCommands() {
    return commandSeq > 0;
  }

  @Override
  public void ignoreFailedStatements(String... sqlStatePrefixes) {
    StatementFailures.of(connection).ignore(sqlStatePrefixes);
  }

  @Override
  public Connection connection() {
    return connection;
  }
}
