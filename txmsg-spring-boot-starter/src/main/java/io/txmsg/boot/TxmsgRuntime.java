package io.txmsg.boot;

import java.util.Map;

/**
 * A txmsg runtime the starter starts: {@link TxmsgProducerRuntime}, {@link TxmsgConsumersRuntime}
 * or {@link TxmsgCdcRelayRuntime}, as the {@code txmsg} health indicator sees it.
 */
public interface TxmsgRuntime {
  /** {@code producer} or {@code consumers}: the health detail's name. */
  String name();

  TxmsgRuntimeStatus status();

  /** More details for the health indicator (read when it is asked); none by default. */
  default Map<String, Object> details() {
    return Map.of();
  }
}
