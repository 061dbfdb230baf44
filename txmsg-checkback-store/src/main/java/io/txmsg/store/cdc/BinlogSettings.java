package io.txmsg.store.cdc;

/** The MariaDB/MySQL server variables a binlog reader depends on. */
public class BinlogSettings {
  private String logBin;
  private String binlogFormat;
  private String binlogRowImage;
  private long serverId;

  /** {@code 1}/{@code ON} when the binary log is written. */
  public String getLogBin() {
    return logBin;
  }

  public void setLogBin(String logBin) {
    this.logBin = logBin;
  }

  public boolean binlogOn() {
    return "1".equals(logBin) || "ON".equalsIgnoreCase(logBin);
  }

  public String getBinlogFormat() {
    return binlogFormat;
  }

  public void setBinlogFormat(String binlogFormat) {
    this.binlogFormat = binlogFormat;
  }

  public String getBinlogRowImage() {
    return binlogRowImage;
  }

  public void setBinlogRowImage(String binlogRowImage) {
    this.binlogRowImage = binlogRowImage;
  }

  /** The server's own id. */
  public long getServerId() {
    return serverId;
  }

  public void setServerId(long serverId) {
    this.serverId = serverId;
  }
}
