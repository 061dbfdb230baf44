package io.txmsg.consumer;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** A DataSource that can be "taken down": new connections fail like an unreachable database. */
final class SwitchableDataSource implements DataSource {
  private final DataSource target;
  private volatile boolean down;

  SwitchableDataSource(DataSource target) {
    this.target = target;
  }

  void down(boolean down) {
    this.down = down;
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (down) {
      throw new SQLTransientConnectionException("database unreachable (test outage)", "08001");
    }
    return target.getConnection();
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return getConnection();
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
