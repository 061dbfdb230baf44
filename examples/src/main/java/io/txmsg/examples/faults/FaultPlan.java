package io.txmsg.examples.faults;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which faults the demo injects, and where. Every decision is a pure function of the order number
 * (or the event id / idempotency key), so a run is reproducible; each injected fault is counted.
 * Counts here say what was INJECTED; what the system made of it is read from the database.
 */
public final class FaultPlan {
  /** The switchable faults (all on by default). */
  public enum Fault {
    PRODUCER_CRASH("producer dies after the local commit, before the half-message commit"),
    FAILING_TX("local transaction throws (the client retries the same eventId)"),
    SLOW_TX("local transaction slower than the broker's check-back"),
    DUPLICATES("broker delivers a duplicate (byte-identical resend copy)"),
    ACK_LOSS("consumer fails after its commit, before the ack"),
    POISON("poison messages: undecodable payload, same eventId with another payload"),
    GATEWAY_FAILURES("SMS gateway fails transiently (before or after sending)"),
    REJECT_UNTIL_FIX("points handler rejects some orders until a fix, then operator replay"),
    OUT_OF_ORDER("OrderPaid v2 delivered after OrderRefunded v3 for some orders");

    private final String description;

    Fault(String description) {
      this.description = description;
    }

    public String description() {
      return description;
    }

    /** The command-line flag that switches it off, e.g. {@code --no-producer-crash}. */
    public String flag() {
      return "--no-" + name().toLowerCase().replace('_', '-');
    }
  }

  /** What a gateway call does under this plan. */
  public enum GatewayFailure {
    NONE,
    BEFORE_SEND,
    AFTER_SEND
  }

  private final int orders;
  private final Set<Fault> enabled;
  private final Set<Integer> slowOrders = ConcurrentHashMap.newKeySet();
  private final Set<String> ackDropped = ConcurrentHashMap.newKeySet();
  private final Map<Fault, AtomicInteger> injected = new EnumMap<>(Fault.class);
  private final AtomicBoolean fixDeployed = new AtomicBoolean();

  private final long slowTxMillis;

  /**
   * @param slowTxMillis how long a slow local transaction takes: above the broker's transaction
   *     timeout plus its check interval, so that a check-back arrives while it runs
   */
  public FaultPlan(int orders, Set<Fault> enabled, long slowTxMillis) {
    this.orders = orders;
    this.slowTxMillis = slowTxMillis;
    this.enabled = Set.copyOf(enabled);
    for (Fault f : Fault.values()) {
      injected.put(f, new AtomicInteger());
    }
    int slow = on(Fault.SLOW_TX) ? Math.max(1, orders / 500) : 0;
    for (int k = 1; k <= slow; k++) {
      slowOrders.add(k * orders / (slow + 1));
    }
  }

  public boolean on(Fault f) {
    return enabled.contains(f);
  }

  public long slowTxMillis() {
    return slowTxMillis;
  }

  public int orders() {
    return orders;
  }

  /** The order number of {@code order-000042}. */
  public static int orderNumber(String orderId) {
    return Integer.parseInt(orderId.substring(orderId.indexOf('-') + 1));
  }

  public static String orderId(int n) {
    return String.format("order-%06d", n);
  }

  /** The producer "dies" after committing this order's payment (about 1 in 40). */
  public boolean producerCrash(int order) {
    return on(Fault.PRODUCER_CRASH) && order % 40 == 7;
  }

  /** The first attempt of this order's payment throws inside the local transaction (1 in 33). */
  public boolean failingTx(int order) {
    return on(Fault.FAILING_TX) && order % 33 == 5;
  }

  /** This order's local transaction outlives the broker's check-back (N / 500, at least 1). */
  public boolean slowTx(int order) {
    return slowOrders.contains(order);
  }

  /** This order also gets OrderPaid v2 (held back) and OrderRefunded v3 (1 in 20). */
  public boolean outOfOrder(int order) {
    return on(Fault.OUT_OF_ORDER) && order % 20 == 11;
  }

  /** The broker delivers this order's PaymentSucceeded twice (1 in 10). */
  public boolean duplicate(int order) {
    return on(Fault.DUPLICATES) && order % 10 == 3;
  }

  /** The points handler rejects this order until the fix is deployed (1 in 100). */
  public boolean rejectedUntilFix(int order) {
    return on(Fault.REJECT_UNTIL_FIX) && order % 100 == 42 && !fixDeployed.get();
  }

  /** Skips the ack once for about 1 in 25 events per group (the first delivery only). */
  public boolean dropAck(String group, String eventId) {
    return on(Fault.ACK_LOSS)
        && Math.floorMod((group + "|" + eventId).hashCode(), 25) == 0
        && ackDropped.add(group + "|" + eventId);
  }

  /** Undecodable messages and conflicting copies sent (each): max(2, N / 400). */
  public int poisonCount() {
    return on(Fault.POISON) ? Math.max(2, orders / 400) : 0;
  }

  /** About 10 % of first calls fail (6 % before sending, 4 % after); 2 % of second calls too. */
  public GatewayFailure gatewayFailure(String idempotencyKey, int attempt) {
    if (!on(Fault.GATEWAY_FAILURES) || attempt > 2) {
      return GatewayFailure.NONE;
    }
    int h = Math.floorMod(idempotencyKey.hashCode() * 31 + attempt, 100);
    if (attempt == 1) {
      return h < 6
          ? GatewayFailure.BEFORE_SEND
          : h < 10 ? GatewayFailure.AFTER_SEND : GatewayFailure.NONE;
    }
    return h < 2 ? GatewayFailure.BEFORE_SEND : GatewayFailure.NONE;
  }

  /** The "fix" of the points handler is deployed: rejected orders are accepted from now on. */
  public void deployFix() {
    fixDeployed.set(true);
  }

  /** Counts one injection of {@code f}. */
  public void injected(Fault f) {
    injected.get(f).incrementAndGet();
  }

  public int injectedCount(Fault f) {
    return injected.get(f).get();
  }
}
