package io.txmsg.store.cdc;

import java.util.Objects;

/**
 * What every write of a CDC relay names: the store, the relay's owner token and the lease
 * generation it acquired. A write whose fence no longer matches the lease row changes nothing.
 */
public record RelayFence(String storeId, String ownerToken, long generation) {
  public RelayFence {
    Objects.requireNonNull(storeId, "storeId");
    Objects.requireNonNull(ownerToken, "ownerToken");
  }
}
