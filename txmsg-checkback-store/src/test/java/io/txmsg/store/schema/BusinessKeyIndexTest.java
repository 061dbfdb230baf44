package io.txmsg.store.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.store.StoreFixtures;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.ops.OpsQueries;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The journal's business-key index, opt-in since schema V6: an install has none and the search by
 * business key still answers; {@link SchemaMigrator#createBusinessKeyIndex} creates it once; any
 * valid index leading with the column counts, whatever its name; an INVALID PostgreSQL index left
 * by an interrupted concurrent build is reported, not taken for the index.
 */
class BusinessKeyIndexTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String PREFIX = "txmsg_";
  private static final String INDEX = PREFIX + "journal_business_key_ix";

  @ParameterizedTest
  @MethodSource(DB)
  void anInstallHasNoBusinessKeyIndexAndCreatingItOnceServesTheSearch(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      SchemaMigrator schema = new SchemaMigrator(ds, TxmsgStore.detect(ds, PREFIX));
      schema.apply();
      TxmsgStore store = TxmsgStore.detect(ds, PREFIX);
      insert(ds, store, "e1", "order-1");
      insert(ds, store, "e2", "order-2");

      assertThat(SchemaMigrationTest.indexes(ds, PREFIX + "journal")).doesNotContain(INDEX);
      assertThat(schema.businessKeyIndexed()).isFalse();
      assertThat(search(ds, store, "order-1"))
          .as("correct without the index")
          .containsExactly("e1");

      assertThat(schema.createBusinessKeyIndex()).isTrue();

      assertThat(SchemaMigrationTest.indexes(ds, PREFIX + "journal")).contains(INDEX);
      assertThat(schema.businessKeyIndexed()).isTrue();
      assertThat(schema.createBusinessKeyIndex()).as("a second run does nothing").isFalse();
      assertThat(search(ds, store, "order-1")).containsExactly("e1");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void anyValidIndexLeadingWithBusinessKeyCountsAndNoOtherDoes(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      SchemaMigrator schema = new SchemaMigrator(ds, TxmsgStore.detect(ds, PREFIX));
      schema.apply();

      SchemaMigrationTest.sql(
          ds, "CREATE INDEX ops_created_key_ix ON txmsg_journal (created_at, business_key)");
      assertThat(schema.businessKeyIndexed())
          .as("business_key second: cannot serve an equality search on it alone")
          .isFalse();

      SchemaMigrationTest.sql(
          ds, "CREATE INDEX ops_key_created_ix ON txmsg_journal (business_key, created_at)");
      assertThat(schema.businessKeyIndexed()).as("an operator's own index, first column").isTrue();
      assertThat(schema.createBusinessKeyIndex()).as("so nothing is created").isFalse();
      assertThat(SchemaMigrationTest.indexes(ds, PREFIX + "journal")).doesNotContain(INDEX);

      if (kind == TestDatabase.POSTGRESQL) {
        // An interrupted CREATE INDEX CONCURRENTLY leaves an INVALID index of the name. A unique
        // build over duplicate keys fails the same way and leaves one.
        SchemaMigrationTest.sql(ds, "DROP INDEX ops_key_created_ix");
        TxmsgStore store = TxmsgStore.detect(ds, PREFIX);
        insert(ds, store, "e1", "same");
        insert(ds, store, "e2", "same");
        assertThatThrownBy(
                () ->
                    SchemaMigrationTest.sql(
                        ds,
                        "CREATE UNIQUE INDEX CONCURRENTLY "
                            + INDEX
                            + " ON txmsg_journal (business_key)"))
            .hasMessageContaining("duplicate");
        assertThat(SchemaMigrationTest.indexes(ds, PREFIX + "journal")).contains(INDEX);
        assertThat(schema.businessKeyIndexed()).as("INVALID serves no query").isFalse();

        assertThatThrownBy(schema::createBusinessKeyIndex)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("not valid")
            .hasMessageContaining("DROP INDEX " + INDEX + " and run this again");

        SchemaMigrationTest.sql(ds, "DROP INDEX " + INDEX);
        assertThat(schema.createBusinessKeyIndex()).isTrue();
        assertThat(schema.businessKeyIndexed()).isTrue();
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void anOlderSchemaIsRefusedBeforeAnythingRuns(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      SchemaMigrationTest.installV1(ds, PREFIX);
      SchemaMigrator schema = new SchemaMigrator(ds, TxmsgStore.detect(ds, PREFIX));

      assertThat(schema.businessKeyIndexed()).as("V1 still has it").isTrue();
      assertThatThrownBy(schema::createBusinessKeyIndex)
          .isInstanceOf(SchemaVersionException.class)
          .hasMessageContaining("this release needs V" + SchemaInstaller.VERSION);
    }
  }

  private static void insert(DataSource ds, TxmsgStore store, String eventId, String businessKey)
      throws Exception {
    JournalRow row = StoreFixtures.journalRow(eventId);
    row.setBusinessKey(businessKey);
    Journal journal = new Journal(ds, store);
    new StoreTransactions(ds, store)
        .run(
            c -> {
              journal.insert(c, row, 1000);
              return null;
            });
  }

  private static List<String> search(DataSource ds, TxmsgStore store, String businessKey)
      throws Exception {
    OpsQueries ops = new OpsQueries(store);
    return new StoreTransactions(ds, store)
        .run(c -> ops.journalEventIdsByBusinessKey(c, businessKey, 10));
  }
}
