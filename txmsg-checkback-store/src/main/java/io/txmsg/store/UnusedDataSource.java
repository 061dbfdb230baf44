package io.txmsg.store;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** Placeholder for MyBatis' Environment: txmsg sessions always run on a caller's connection. */
final class UnusedDataSource implements DataSource {
  @Override
  public Connection getConnection() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("txmsg opens sessions on a caller's connection");
  }

  @Override
  public Connection getConnection(String user, String password)
      throws SQLFeatureNotSupportedException {
    return getConnection();
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }
}
