package io.txmsg.boot;

/**
 * A txmsg runtime the starter starts: {@link TxmsgProducerRuntime} or {@link
 * TxmsgConsumersRuntime}, as the {@code txmsg} health indicator sees it.
 */
public interface TxmsgRuntime {
  /** {@code producer} or {@code consumers}: the health detail's name. */
  String name();

  TxmsgRuntimeStatus status();
}
