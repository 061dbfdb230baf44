package io.txmsg.store.schema;

/**
 * What {@link SchemaMigrator#apply} did.
 *
 * @param prefix the table prefix
 * @param from the version found (0: nothing installed)
 * @param to the version now installed
 * @param statements schema statements run
 * @param alreadyApplied statements stepped over because their table, column or index existed (an
 *     earlier, interrupted run had got that far)
 */
public record SchemaUpgrade(String prefix, int from, int to, int statements, int alreadyApplied) {
  /** Whether this call installed or upgraded anything (false: it was current already). */
  public boolean changed() {
    return from != to;
  }
}
