package io.txmsg.boot;

import io.txmsg.store.schema.SchemaStatus;
import io.txmsg.store.schema.SchemaVersionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a startup refused for the schema version into Boot's "APPLICATION FAILED TO START" report
 * with the action in the words of a Boot application: the {@code auto-create-schema} properties
 * next to {@code txmsg schema apply}, instead of a stack trace that names the settings classes.
 */
public class SchemaVersionFailureAnalyzer extends AbstractFailureAnalyzer<SchemaVersionException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, SchemaVersionException cause) {
    SchemaStatus status = cause.status();
    String action =
        switch (status.state()) {
          case MISSING, OLDER ->
              "Install or upgrade the txmsg schema (prefix "
                  + status.prefix()
                  + ") to V"
                  + status.supported()
                  + ": run `txmsg schema apply --jdbc-url <url> --prefix "
                  + status.prefix()
                  + "`, apply the SQL that `txmsg schema print` shows (or the Flyway copies under"
                  + " io/txmsg/store/flyway/<vendor>/) with your own tooling, or let the"
                  + " application do it by setting txmsg.producer.auto-create-schema=true and"
                  + " txmsg.consumer.auto-create-schema=true.";
          case NEWER ->
              "Upgrade txmsg to a release that knows schema V"
                  + status.installed()
                  + ", as the other instances on this database already did; a schema is never"
                  + " downgraded.";
          case CURRENT -> "None: the schema is current.";
        };
    return new FailureAnalysis(cause.getMessage(), action, cause);
  }
}
