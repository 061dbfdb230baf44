package io.txmsg.cdc;

import io.debezium.config.Configuration;
import io.debezium.document.DocumentReader;
import io.debezium.document.DocumentWriter;
import io.debezium.relational.history.AbstractSchemaHistory;
import io.debezium.relational.history.HistoryRecord;
import io.debezium.relational.history.HistoryRecordComparator;
import io.debezium.relational.history.SchemaHistoryException;
import io.debezium.relational.history.SchemaHistoryListener;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;

/**
 * The MariaDB/MySQL connector's schema history (the table definitions it needs to decode the binlog
 * from its offset on) in the txmsg database ({@code ${prefix}cdc_schema_history}), so that another
 * instance can resume where this one stopped; a local file could not be. Records are appended in
 * order under the lease generation: a relay that lost the lease appends nothing.
 */
public final class TxmsgSchemaHistory extends AbstractSchemaHistory {
  static final String CONFIG_KEY = CONFIGURATION_FIELD_PREFIX_STRING + RelayRun.CONFIG_KEY;

  private RelayRun run;
  private long nextSeq;

  /** Instantiated by Debezium's connector. */
  public TxmsgSchemaHistory() {}

  @Override
  public void configure(
      Configuration config,
      HistoryRecordComparator comparator,
      SchemaHistoryListener listener,
      boolean useCatalogBeforeSchema) {
    super.configure(config, comparator, listener, useCatalogBeforeSchema);
    run = RelayRun.find(config.getString(CONFIG_KEY));
  }

  @Override
  public synchronized void start() {
    super.start();
    try {
      nextSeq = run.store().nextHistorySeq(run.fence().storeId());
    } catch (Exception e) {
      throw new SchemaHistoryException("cannot read the CDC schema history: " + e.getMessage(), e);
    }
  }

  @Override
  protected synchronized void storeRecord(HistoryRecord record) throws SchemaHistoryException {
    String json;
    try {
      json = DocumentWriter.defaultWriter().write(record.document());
    } catch (IOException e) {
      throw new SchemaHistoryException("cannot write a schema history record", e);
    }
    boolean stored;
    try {
      stored = run.store().appendHistory(run.fence(), nextSeq, json);
    } catch (Exception e) {
      throw new SchemaHistoryException("cannot store the CDC schema history: " + e.getMessage(), e);
    }
    if (!stored) {
      run.lost("schema history write fenced");
      throw new SchemaHistoryException(
          "the relay lease of store " + run.fence().storeId() + " was taken over");
    }
    nextSeq++;
  }

  @Override
  protected synchronized void recoverRecords(Consumer<HistoryRecord> records) {
    try {
      for (String json : history()) {
        records.accept(new HistoryRecord(DocumentReader.defaultReader().read(json)));
      }
    } catch (IOException e) {
      throw new SchemaHistoryException("a stored schema history record cannot be read", e);
    }
  }

  @Override
  public boolean storageExists() {
    return true; // the table is part of the txmsg schema (V4)
  }

  @Override
  public boolean exists() {
    return !history().isEmpty();
  }

  private List<String> history() {
    try {
      return run.store().history(run.fence().storeId());
    } catch (Exception e) {
      throw new SchemaHistoryException("cannot read the CDC schema history: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "txmsg schema history (store " + (run == null ? "?" : run.fence().storeId()) + ")";
  }
}
