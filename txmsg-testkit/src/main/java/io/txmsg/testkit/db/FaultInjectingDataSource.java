package io.txmsg.testkit.db;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The one DataSource stub of the tests: a real DataSource (a fixture's pool) that a test can break
 * on purpose. {@link #down(boolean) Taken down}, new connections fail the way an unreachable
 * database does (SQLState 08001); with a {@link ConnectionHook}, every call on a connection it
 * hands out passes through the hook first (to fail a commit, count isolation changes, keep a
 * session alive). Everything else, {@code unwrap} and {@code isWrapperFor} included, goes to the
 * real DataSource, so code that looks for the pool behind it (to evict a broken connection) still
 * finds it.
 */
public final class FaultInjectingDataSource implements DataSource {
  /** Sees each call on a handed-out connection before the real connection does. */
  @FunctionalInterface
  public interface ConnectionHook {
    /**
     * Handles {@code method} called with {@code args}: return {@code call.proceed()} to run it on
     * {@code real} unchanged, or return or throw something else instead.
     */
    Object intercept(Connection real, Method method, Object[] args, RealCall call) throws Throwable;
  }

  /** The intercepted call, run on the real connection. */
  @FunctionalInterface
  public interface RealCall {
    Object proceed() throws Throwable;
  }

  private final DataSource target;
  private final ConnectionHook hook;
  private volatile boolean down;

  /** Connections of {@code target} as they are, until the DataSource is taken down. */
  public FaultInjectingDataSource(DataSource target) {
    this(target, null);
  }

  /** Connections of {@code target} whose every call passes through {@code hook}. */
  public FaultInjectingDataSource(DataSource target, ConnectionHook hook) {
    this.target = target;
    this.hook = hook;
  }

  /** While down, {@link #getConnection()} fails like an unreachable database (a test outage). */
  public void down(boolean down) {
    this.down = down;
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (down) {
      throw new SQLTransientConnectionException("database unreachable (test outage)", "08001");
    }
    Connection real = target.getConnection();
    return hook == null ? real : hooked(real);
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return getConnection();
  }

  private Connection hooked(Connection real) {
    return (Connection)
        Proxy.newProxyInstance(
            FaultInjectingDataSource.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) ->
                hook.intercept(real, method, args, () -> call(real, method, args)));
  }

  private static Object call(Connection real, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(real, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return target.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return target.isWrapperFor(iface);
  }
}
