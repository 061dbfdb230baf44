package io.txmsg.consumer;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.Commands;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.consume.ReplayRequests;
import io.txmsg.store.consume.VersionRows;
import javax.sql.DataSource;

/** The store's operations on the consumer's tables of one business database, made once. */
record ConsumerTables(
    ConsumeLog consumeLog,
    VersionRows versions,
    DeadLetters deadLetters,
    Commands commands,
    ReplayRequests replayRequests) {

  static ConsumerTables of(DataSource dataSource, TxmsgStore store) {
    return new ConsumerTables(
        new ConsumeLog(dataSource, store),
        new VersionRows(dataSource, store),
        new DeadLetters(dataSource, store),
        new Commands(dataSource, store),
        new ReplayRequests(dataSource, store));
  }
}
