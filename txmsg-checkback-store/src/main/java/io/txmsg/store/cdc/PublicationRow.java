package io.txmsg.store.cdc;

/** A PostgreSQL publication as {@code pg_publication} describes it. */
public class PublicationRow {
  private String pubname;
  private boolean puballtables;
  private boolean pubinsert;
  private boolean pubupdate;
  private boolean pubdelete;
  private boolean pubtruncate;

  public String getPubname() {
    return pubname;
  }

  public void setPubname(String pubname) {
    this.pubname = pubname;
  }

  public boolean isPuballtables() {
    return puballtables;
  }

  public void setPuballtables(boolean puballtables) {
    this.puballtables = puballtables;
  }

  public boolean isPubinsert() {
    return pubinsert;
  }

  public void setPubinsert(boolean pubinsert) {
    this.pubinsert = pubinsert;
  }

  public boolean isPubupdate() {
    return pubupdate;
  }

  public void setPubupdate(boolean pubupdate) {
    this.pubupdate = pubupdate;
  }

  public boolean isPubdelete() {
    return pubdelete;
  }

  public void setPubdelete(boolean pubdelete) {
    this.pubdelete = pubdelete;
  }

  public boolean isPubtruncate() {
    return pubtruncate;
  }

  public void setPubtruncate(boolean pubtruncate) {
    this.pubtruncate = pubtruncate;
  }

  /** Whether it publishes inserts and nothing else. */
  public boolean insertsOnly() {
    return pubinsert && !pubupdate && !pubdelete && !pubtruncate;
  }
}
