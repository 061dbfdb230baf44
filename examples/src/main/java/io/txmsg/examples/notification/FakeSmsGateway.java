package io.txmsg.examples.notification;

import io.txmsg.api.consumer.Command;
import io.txmsg.api.consumer.CommandExecutor;
import io.txmsg.examples.faults.FaultPlan;
import io.txmsg.examples.faults.FaultPlan.Fault;
import io.txmsg.examples.faults.FaultPlan.GatewayFailure;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for an external SMS provider. Like real providers it deduplicates by the idempotency
 * key it is given, and it fails sometimes: before sending (connection refused) or after sending
 * (the response is lost, so the caller retries something that already happened). It counts calls
 * and sends per key; "sent once per key" is checked against its own counts.
 */
public final class FakeSmsGateway implements CommandExecutor {
  private final FaultPlan faults;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> sends = new ConcurrentHashMap<>();
  private final AtomicInteger dedupHits = new AtomicInteger();

  public FakeSmsGateway(FaultPlan faults) {
    this.faults = faults;
  }

  /** The provider's API: send once per idempotency key. */
  @Override
  public void execute(Command command) throws Exception {
    String key = command.idempotencyKey();
    calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    GatewayFailure failure = faults.gatewayFailure(key, command.attempt());
    if (failure == GatewayFailure.BEFORE_SEND) {
      faults.injected(Fault.GATEWAY_FAILURES);
      throw new java.net.ConnectException("sms gateway: connection refused (simulated)");
    }
    synchronized (this) {
      if (sends.containsKey(key)) {
        dedupHits.incrementAndGet(); // a retry of something already sent: not sent again
      } else {
        sends.put(key, new AtomicInteger(1));
      }
    }
    if (failure == GatewayFailure.AFTER_SEND) {
      faults.injected(Fault.GATEWAY_FAILURES);
      throw new java.net.SocketTimeoutException("sms gateway: response lost (simulated)");
    }
  }

  /** Calls received, including failed ones and retries. */
  public int calls() {
    return calls.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  /** Distinct idempotency keys whose SMS went out. */
  public Map<String, Integer> sendsPerKey() {
    Map<String, Integer> copy = new java.util.HashMap<>();
    sends.forEach((k, v) -> copy.put(k, v.get()));
    return copy;
  }

  /** Calls recognised as repeats of an SMS already sent. */
  public int dedupHits() {
    return dedupHits.get();
  }
}
