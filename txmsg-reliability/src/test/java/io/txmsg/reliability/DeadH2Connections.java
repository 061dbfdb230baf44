package io.txmsg.reliability;

import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import java.util.Set;

/**
 * Tells HikariCP that an H2 connection whose server went away is dead. Hikari evicts a connection
 * on SQLState class 08 (and PostgreSQL's 57P0x), but H2 over TCP reports a lost session with its
 * own codes as SQLState ("Connection is broken" 90067, "Database is already closed" 90121, ...).
 * Without this the pool kept lending such connections after the suite's H2 outage: each failed at
 * once, was returned within Hikari's 500 ms validation bypass and lent again, for minutes (see
 * docs/facts.md, "A pool must evict what the database closed").
 */
public final class DeadH2Connections implements SQLExceptionOverride {
  private static final Set<String> DEAD = Set.of("90067", "90098", "90121", "90007");

  @java.lang.Override
  public Override adjudicate(SQLException e) {
    return e.getSQLState() != null && DEAD.contains(e.getSQLState())
        ? Override.MUST_EVICT
        : Override.CONTINUE_EVICT;
  }
}
