package io.txmsg.store.consume;

import java.math.BigDecimal;
import java.time.Instant;

/** One replay request and its audit: who asked, why, for what, and what happened. */
public class ReplayRequestRow {
  private String requestId;
  private String operator;
  private String reason;
  private String consumerGroup;
  private String selector;
  private int ratePerSecond;
  private int canary;
  private BigDecimal maxFailureRatio;
  private boolean dryRun;
  private ReplayStatus status;
  private Instant requestedAt;
  private Instant finishedAt;
  private int selected;
  private int succeeded;
  private int failed;
  private String stoppedReason;

  public String getRequestId() {
    return requestId;
  }

  public void setRequestId(String requestId) {
    this.requestId = requestId;
  }

  public String getOperator() {
    return operator;
  }

  public void setOperator(String operator) {
    this.operator = operator;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getConsumerGroup() {
    return consumerGroup;
  }

  public void setConsumerGroup(String consumerGroup) {
    this.consumerGroup = consumerGroup;
  }

  public String getSelector() {
    return selector;
  }

  public void setSelector(String selector) {
    this.selector = selector;
  }

  public int getRatePerSecond() {
    return ratePerSecond;
  }

  public void setRatePerSecond(int ratePerSecond) {
    this.ratePerSecond = ratePerSecond;
  }

  public int getCanary() {
    return canary;
  }

  public void setCanary(int canary) {
    this.canary = canary;
  }

  public BigDecimal getMaxFailureRatio() {
    return maxFailureRatio;
  }

  public void setMaxFailureRatio(BigDecimal maxFailureRatio) {
    this.maxFailureRatio = maxFailureRatio;
  }

  public boolean getDryRun() {
    return dryRun;
  }

  public void setDryRun(boolean dryRun) {
    this.dryRun = dryRun;
  }

  public ReplayStatus getStatus() {
    return status;
  }

  public void setStatus(ReplayStatus status) {
    this.status = status;
  }

  public Instant getRequestedAt() {
    return requestedAt;
  }

  public void setRequestedAt(Instant requestedAt) {
    this.requestedAt = requestedAt;
  }

  public Instant getFinishedAt() {
    return finishedAt;
  }

  public void setFinishedAt(Instant finishedAt) {
    this.finishedAt = finishedAt;
  }

  public int getSelected() {
    return selected;
  }

  public void setSelected(int selected) {
    this.selected = selected;
  }

  public int getSucceeded() {
    return succeeded;
  }

  public void setSucceeded(int succeeded) {
    this.succeeded = succeeded;
  }

  public int getFailed() {
    return failed;
  }

  public void setFailed(int failed) {
    this.failed = failed;
  }

  public String getStoppedReason() {
    return stoppedReason;
  }

  public void setStoppedReason(String stoppedReason) {
    this.stoppedReason = stoppedReason;
  }
}
