package io.txmsg.cdc;

import io.txmsg.api.PublishException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what a relay reports (the metrics and health hook). */
final class RecordingListener implements CdcRelayListener {
  final List<Long> acquired = new CopyOnWriteArrayList<>();
  final List<Long> lost = new CopyOnWriteArrayList<>();
  final List<String> cannotResume = new CopyOnWriteArrayList<>();
  final List<String> sendFailed = new CopyOnWriteArrayList<>();
  final List<String> dead = new CopyOnWriteArrayList<>();
  final List<String> heldBack = new CopyOnWriteArrayList<>();

  @Override
  public void leaseAcquired(String storeId, long generation) {
    acquired.add(generation);
  }

  @Override
  public void leaseLost(String storeId, long generation) {
    lost.add(generation);
  }

  @Override
  public void cannotResume(String storeId, String reason) {
    cannotResume.add(reason);
  }

  @Override
  public void sendFailed(String eventId, PublishException error, int attempt, long retryInMillis) {
    sendFailed.add(eventId);
  }

  @Override
  public void dead(String eventId, PublishException error) {
    dead.add(eventId + ":" + error.errorCode());
  }

  @Override
  public void heldBack(String eventId) {
    heldBack.add(eventId);
  }
}
