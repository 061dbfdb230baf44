/**
 * The versioned schema of the txmsg tables: the shipped scripts per dialect ({@link
 * io.txmsg.store.schema.SchemaScripts}), reading, verifying, installing and upgrading them under a
 * database lock ({@link io.txmsg.store.schema.SchemaMigrator}, which also opens a store at start),
 * and what a version check found.
 */
package io.txmsg.store.schema;
