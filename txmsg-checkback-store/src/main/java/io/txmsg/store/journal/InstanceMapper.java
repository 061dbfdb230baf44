package io.txmsg.store.journal;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/**
 * Statements on the producer-instance table (SQL in InstanceMapper.xml), run by {@link
 * InstanceHeartbeats}. Every time is the database's clock.
 */
interface InstanceMapper {
  /** Registers an instance: started and beaten now. */
  int register(
      @Param("instanceId") String instanceId,
      @Param("storeId") String storeId,
      @Param("host") String host);

  /** One beat: beat_at = now. 0 when the row is gone (then register again). */
  int beat(@Param("instanceId") String instanceId);

  /**
   * Other instances of the store whose last beat is older than {@code staleMillis} and that no
   * instance took over within the last {@code staleMillis}.
   */
  List<String> selectStale(
      @Param("storeId") String storeId,
      @Param("self") String self,
      @Param("staleMillis") long staleMillis);

  /**
   * Records a takeover pass of {@code staleInstance} by {@code self} while the instance is still
   * stale and not taken over within {@code staleMillis}; 0 when it beat meanwhile or another live
   * instance took it first.
   */
  int claimTakeover(
      @Param("staleInstance") String staleInstance,
      @Param("self") String self,
      @Param("staleMillis") long staleMillis);

  /** Forgets the store's instances that have not beaten for {@code maxAgeMillis}. */
  int deleteOlder(@Param("storeId") String storeId, @Param("maxAgeMillis") long maxAgeMillis);

  /** An instance's last beat as the database's age in milliseconds; null when unknown. */
  Long beatAgeMillis(@Param("instanceId") String instanceId);
}
