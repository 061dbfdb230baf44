/**
 * Micrometer meters of the CDC relay ({@link io.txmsg.cdc.micrometer.CdcRelayMetrics}); the only
 * package of txmsg-cdc that imports Micrometer, an optional dependency.
 */
package io.txmsg.cdc.micrometer;
