package io.txmsg.cli;

import io.txmsg.api.LogSafe;
import io.txmsg.store.Dialect;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.schema.SchemaPlan;
import io.txmsg.store.schema.SchemaScripts;
import io.txmsg.store.schema.SchemaStatus;
import io.txmsg.store.schema.SchemaUpgrade;
import io.txmsg.store.schema.SchemaVersionException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code txmsg schema check|print|apply}: the schema version recorded in {@code ${prefix}schema}
 * against the one this release needs (docs/architecture.md, "Schema versions"). {@code apply} is
 * what {@code autoCreateSchema} does at startup, run by an operator instead.
 */
@Command(
    name = "schema",
    description = "Check, print or apply the txmsg schema version (the ${prefix}schema table).",
    subcommands = {
      SchemaCommand.Check.class,
      SchemaCommand.Print.class,
      SchemaCommand.Apply.class,
      SchemaCommand.BusinessKeyIndex.class
    })
final class SchemaCommand extends CommandGroup {

  /** Prints a version refusal as one line and answers FINDINGS: nothing was changed. */
  private static int refused(DbCommand command, SchemaVersionException e) {
    command.err().println("txmsg: " + e.getMessage());
    return TxmsgCli.FINDINGS;
  }

  private static Map<String, Object> statusDoc(SchemaStatus s) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("table", s.table());
    doc.put("installed", s.installed());
    doc.put("version_recorded", s.versionRow());
    doc.put("release", s.supported());
    doc.put("state", s.state().name());
    return doc;
  }

  @Command(
      name = "check",
      description = {
        "Compare the installed schema version with the one this release needs.",
        "Exit 0 when current; 1 when missing, older (run `txmsg schema apply`) or newer",
        "(upgrade txmsg), with the reason on stderr."
      })
  static final class Check extends DbCommand {
    @Override
    int run(Database db, Output out) throws Exception {
      SchemaStatus s = db.schema().check();
      if (out.json()) {
        Map<String, Object> doc = statusDoc(s);
        if (s.installed() > 0) {
          doc.put("business_key_index", db.schema().businessKeyIndexed());
        }
        out.json(doc);
      } else {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("table", s.table());
        doc.put("installed", s.describe());
        doc.put("release", "V" + s.supported());
        doc.put("state", s.state().name());
        if (s.installed() > 0) {
          doc.put(
              "business_key_index",
              db.schema().businessKeyIndexed()
                  ? "present"
                  : "absent (opt-in: txmsg schema business-key-index)");
        }
        out.record(doc);
      }
      if (s.state() != SchemaStatus.State.CURRENT) {
        return refused(this, new SchemaVersionException(s));
      }
      return TxmsgCli.OK;
    }
  }

  @Command(
      name = "print",
      description = {
        "Print the SQL that `apply` would run on this database: the full install for an empty",
        "one, the later versions for an older one. With --dialect, print without a database."
      })
  static final class Print extends DbCommand {
    @Option(
        names = "--dialect",
        paramLabel = "<dialect>",
        converter = DialectConverter.class,
        description = "h2, mysql (MySQL/MariaDB) or postgresql: print without connecting.")
    Dialect dialect;

    @Option(
        names = "--from",
        paramLabel = "<version>",
        description =
            "With --dialect: the version the database is at (default 0, an empty database; 1, a"
                + " database installed by a release before schema versions).")
    Integer from;

    @Override
    void validate() {
      if (from != null && dialect == null) {
        throw usage("--from needs --dialect (with a database, the installed version is read)");
      }
      if (from != null && (from < 0 || from > SchemaInstaller.VERSION)) {
        throw usage("--from must be 0.." + SchemaInstaller.VERSION + ", was " + from);
      }
    }

    @Override
    boolean offline() {
      return dialect != null;
    }

    @Override
    int run(Database db, Output out) throws Exception {
      SchemaPlan plan;
      try {
        if (db == null) {
          String prefix = connection.prefix();
          int version = from == null ? 0 : from;
          // 0 and 1 have no version row: empty, or installed by a release before schema versions.
          SchemaStatus assumed = new SchemaStatus(prefix, version, version > 1, version > 1);
          plan = SchemaScripts.plan(dialect, prefix, assumed);
        } else {
          plan = db.schema().plan();
        }
      } catch (SchemaVersionException e) {
        return refused(this, e);
      }
      if (out.json()) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("dialect", plan.dialect().id());
        doc.put("prefix", plan.prefix());
        doc.put("from", plan.from());
        doc.put("to", plan.to());
        doc.put("statements", plan.statements());
        out.json(doc);
      } else {
        out.writer().print(plan.render());
      }
      return TxmsgCli.OK;
    }
  }

  @Command(
      name = "apply",
      description = {
        "Install the schema, or upgrade it in place, to the version this release needs.",
        "Additive: running instances keep working. Instances and operators applying at the",
        "same time take turns on a database lock; a second run does nothing."
      })
  static final class Apply extends DbCommand {
    @Override
    int run(Database db, Output out) throws Exception {
      SchemaUpgrade u;
      try {
        u = db.schema().apply();
      } catch (SchemaVersionException e) {
        return refused(this, e);
      }
      if (out.json()) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("table", u.prefix() + "schema");
        doc.put("from", u.from());
        doc.put("to", u.to());
        doc.put("changed", u.changed());
        doc.put("statements", u.statements());
        doc.put("already_applied", u.alreadyApplied());
        out.json(doc);
      } else if (u.changed()) {
        out.writer()
            .println(
                u.prefix()
                    + "schema: "
                    + (u.from() == 0 ? "installed" : "upgraded from V" + u.from())
                    + " to V"
                    + u.to()
                    + " ("
                    + u.statements()
                    + " statements"
                    + (u.alreadyApplied() > 0
                        ? ", " + u.alreadyApplied() + " already applied by an earlier run"
                        : "")
                    + ")");
      } else {
        out.writer().println(u.prefix() + "schema: already at V" + u.to() + ", nothing to do");
      }
      return TxmsgCli.OK;
    }
  }

  @Command(
      name = "business-key-index",
      description = {
        "Create the journal's index on business_key, which `txmsg trace <businessKey>` and",
        "`journal list --business-key` search through. Opt-in since schema V6: every journal",
        "insert pays for it. Builds without blocking producers on PostgreSQL (CONCURRENTLY)",
        "and MariaDB (online); can take minutes on a large journal. Does nothing when an index",
        "on business_key exists. --print shows the statement without running it."
      })
  static final class BusinessKeyIndex extends DbCommand {
    @Option(
        names = "--print",
        description = "Print the statement for this database instead of running it.")
    boolean print;

    @Override
    int run(Database db, Output out) throws Exception {
      String sql = SchemaScripts.businessKeyIndex(db.store().dialect(), db.store().prefix());
      if (print) {
        if (out.json()) {
          out.json(Map.of("statement", sql));
        } else {
          out.writer().println(sql);
        }
        return TxmsgCli.OK;
      }
      String table = db.store().prefix() + "journal";
      boolean created;
      long started = System.nanoTime();
      try {
        // An older schema still has the index and a newer one is unknown: refused before anything
        // runs. Progress for a build that can take minutes: what runs, before it runs.
        created =
            db.schema()
                .createBusinessKeyIndex(
                    building -> {
                      if (!out.json()) {
                        out.writer()
                            .println(table + ": creating the business-key index: " + building);
                        out.writer().flush();
                      }
                    });
      } catch (SchemaVersionException e) {
        return refused(this, e);
      }
      long millis = (System.nanoTime() - started) / 1_000_000;
      if (out.json()) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("table", table);
        doc.put("created", created);
        doc.put("statement", sql);
        doc.put("millis", millis);
        out.json(doc);
      } else {
        out.writer()
            .println(
                created
                    ? table + ": business-key index created in " + millis + " ms"
                    : table + ": an index on business_key exists already, nothing to do");
      }
      return TxmsgCli.OK;
    }
  }

  /** Dialect ids as operators type them: h2, mysql (or mariadb), postgresql (or postgres). */
  static final class DialectConverter implements ITypeConverter<Dialect> {
    @Override
    public Dialect convert(String value) {
      String v = value.strip().toLowerCase(Locale.ROOT);
      for (Dialect d : Dialect.values()) {
        if (d.id().equals(v)) {
          return d;
        }
      }
      return switch (v) {
        case "mariadb" -> Dialect.MYSQL;
        case "postgres", "pg" -> Dialect.POSTGRESQL;
        default ->
            throw new TypeConversionException(
                "unknown dialect " + LogSafe.quote(value) + ": use h2, mysql or postgresql");
      };
    }
  }
}
