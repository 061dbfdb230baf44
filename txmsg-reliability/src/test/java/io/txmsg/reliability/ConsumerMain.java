package io.txmsg.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.consumer.TxConsumers;
import java.time.Duration;

/**
 * A consumer JVM running the suite's two groups ({@link Handlers}). With {@code crash=MID_HANDLER}
 * it stops inside the handler of fact {@code crashAt} (its writes uncommitted); with {@code
 * crash=AFTER_COMMIT} it stops after that fact's commit and before its ack. The parent SIGKILLs it
 * there. With {@code crash=PAUSE_MID_HANDLER} it waits a few seconds inside that handler, where the
 * parent SIGSTOPs it, and carries on when it is SIGCONTed.
 */
public final class ConsumerMain {
  private ConsumerMain() {}

  public static void main(String[] argv) throws Exception {
    Args a = new Args(argv);
    String retentionArg = a.get("consumeLogRetention", "");
    Duration retention = retentionArg.isEmpty() ? null : Duration.parse(retentionArg);
    String crash = a.get("crash", "NONE");
    String crashEvent = "f-" + a.get("crashAt", "-1");
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(a.get("url"));
    hc.setUsername(a.get("user", ""));
    hc.setPassword(a.get("password", ""));
    hc.setMaximumPoolSize(8);
    hc.setConnectionTimeout(5_000);
    hc.setExceptionOverrideClassName(DeadH2Connections.class.getName());
    HikariDataSource ds = new HikariDataSource(hc);
    TxConsumers.Builder b =
        Handlers.register(
                TxConsumers.builder(),
                a.get("topic"),
                a.get("points"),
                a.get("proj"),
                crash.equals("MID_HANDLER") ? crashEvent : null,
                crash.equals("PAUSE_MID_HANDLER") ? crashEvent : null)
            .dataSource(ds)
            .settings(
                Handlers.settings(
                    Handlers.connection(a),
                    a.get("topic"),
                    a.get("points"),
                    a.get("proj"),
                    retention))
            .interceptor(
                new ConsumerInterceptor() {
                  @Override
                  public boolean beforeAck(String group, String eventId) {
                    if (crash.equals("AFTER_COMMIT") && eventId.equals(crashEvent)) {
                      Args.hang("CRASHPOINT AFTER_COMMIT " + eventId);
                    }
                    return true;
                  }
                });
    TxConsumers consumers = b.build();
    Args.say("READY");
    Thread.sleep(Duration.parse(a.get("lifetime", "PT1H")).toMillis());
    consumers.close();
  }
}
