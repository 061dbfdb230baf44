package io.txmsg.rocketmq;

import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer group over gRPC with <em>leased</em> delivery ({@link SubscriptionSpec.Lease}): one
 * {@link SimpleConsumer} per topic receives with an explicit invisible duration (the lease), and
 * this client renews the lease of every message it holds until its verdict. ACK acks; RETRY (or an
 * exception) hides the message for the lease's backoff of its delivery attempt (a message of a
 * message group is retried here instead; see Order).
 *
 * <p>Why: a push consumer asks the proxy to renew its messages ("auto renew"), and the proxy keeps
 * renewing them until the broker expires the client's channel ({@code channelExpiredTimeout}, 120 s
 * by default), so a crashed consumer's messages wait about two minutes. Here nothing renews a dead
 * client's messages: they come back after at most one lease. See docs/facts.md, "Leased delivery
 * over gRPC".
 *
 * <p>Order: messages of one message group (FIFO topics) in one receive are handled one after the
 * other in receive order, and a RETRY is retried locally (as rocketmq-client-java's FIFO push
 * consumer does) before the next message of the group runs, so a later version never overtakes an
 * earlier one; the broker hands out a FIFO queue's next messages only when these are settled. Other
 * messages are handled in parallel on the group's threads.
 *
 * <p>A renewal and the final ack or backoff of one message are chained, never concurrent: a renewal
 * replaces the message's receipt handle, and an ack with the replaced handle would leave the
 * renewed lease to expire into a needless redelivery.
 */
final class GrpcLeasedSubscription implements Subscription {
  private static final Logger log = LoggerFactory.getLogger(GrpcLeasedSubscription.class);

  /** Largest receive batch (the proxy's long-polling batch). */
  private static final int MAX_RECEIVE = 32;

  /**
   * Long-poll wait of one receive. The proxy raises anything shorter to 5 s and refuses a poll
   * whose deadline (this + the request timeout) leaves less than that.
   */
  private static final Duration AWAIT = Duration.ofSeconds(10);

  private final SubscriptionSpec spec;
  private final SubscriptionSpec.Lease lease;
  private final DeliveryHandler handler;
  private final List<SimpleConsumer> consumers = new ArrayList<>();
  private final List<Thread> receivers = new ArrayList<>();
  private final ExecutorService workers;
  private final ScheduledExecutorService renewer;

  /**
   * Messages held per consumption thread (received and not yet settled): a few waiting in the
   * workers' queue keep the threads busy while the next receive travels, as a push consumer's
   * message cache does. Their leases are renewed like those of running ones.
   */
  private static final int HELD_PER_THREAD = 4;

  /**
   * Receives in flight per topic: one long-polls while the other's batch is handed over, as a push
   * consumer keeps a receive going per queue.
   */
  private static final int RECEIVERS_PER_TOPIC = 2;

  /** Local attempts of a FIFO message before it is left to the broker (see runInOrder). */
  private static final int MAX_LOCAL_ATTEMPTS = 64;

  /** One permit per message this instance may hold (received and not yet settled). */
  private final Semaphore capacity;

  /**
   * The most one topic's receiver asks for (and so holds during its long poll): the group's threads
   * divided among its topics, so an idle topic's pending poll never takes every permit while a busy
   * topic waits.
   */
  private final int share;

  private final Set<Held> held = ConcurrentHashMap.newKeySet();

  /** Acks and backoffs sent and not yet answered: close() waits for them. */
  private final Set<CompletableFuture<Void>> settling = ConcurrentHashMap.newKeySet();

  private volatile boolean running = true;

  GrpcLeasedSubscription(SubscriptionSpec spec, DeliveryHandler handler) {
    this.spec = spec;
    this.lease = spec.lease();
    this.handler = handler;
    int held = spec.threads() * HELD_PER_THREAD;
    this.capacity = new Semaphore(held);
    this.share = Math.max(1, held / (RECEIVERS_PER_TOPIC * Math.max(1, spec.tagsByTopic().size())));
    AtomicInteger n = new AtomicInteger();
    this.workers =
        Executors.newFixedThreadPool(
            spec.threads(),
            r -> {
              Thread t = new Thread(r, spec.group() + "-leased-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, spec.group() + "-lease-renewer");
              t.setDaemon(true);
              return t;
            });
  }

  void start(ClientServiceProvider provider, ClientConfiguration config) throws Exception {
    try {
      for (Map.Entry<String, String> e : spec.tagsByTopic().entrySet()) {
        // One consumer per topic: a simple consumer's receive round-robins its topics and a
        // receive on an idle topic long-polls while a busy one waits
        // (rmq-simple-consumer-round-robin).
        SimpleConsumer consumer =
            provider
                .newSimpleConsumerBuilder()
                .setClientConfiguration(config)
                .setConsumerGroup(spec.group())
                .setSubscriptionExpressions(
                    Map.of(
                        e.getKey(), new FilterExpression(e.getValue(), FilterExpressionType.TAG)))
                .setAwaitDuration(AWAIT)
                .build();
        consumers.add(consumer);
        for (int i = 0; i < RECEIVERS_PER_TOPIC; i++) {
          Thread t =
              new Thread(
                  () -> receiveLoop(consumer, e.getKey()),
                  spec.group() + "-" + e.getKey() + "-" + i);
          t.setDaemon(true);
          receivers.add(t);
        }
      }
    } catch (Exception e) {
      close();
      throw e;
    }
    long period = Math.max(500, lease.duration().toMillis() / 4);
    renewer.scheduleWithFixedDelay(this::renewDue, period, period, TimeUnit.MILLISECONDS);
    receivers.forEach(Thread::start);
  }

  private void receiveLoop(SimpleConsumer consumer, String topic) {
    while (running) {
      int permits = 0;
      try {
        capacity.acquire();
        permits = 1 + capacity.drainPermits();
        int asked = Math.min(Math.min(MAX_RECEIVE, share), permits);
        capacity.release(permits - asked);
        permits = asked;
        List<MessageView> views = consumer.receive(asked, lease.duration());
        capacity.release(asked - views.size());
        permits = 0;
        if (!views.isEmpty()) {
          dispatch(consumer, views);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        capacity.release(permits);
        if (!running) {
          return;
        }
        // Nothing is lost by waiting: a message received but not settled comes back after its
        // lease.
        log.warn(
            "consumer group {} topic {}: receive failed: {} (retrying in 1 s)",
            spec.group(),
            topic,
            e.toString());
        sleepQuietly(1000);
      }
    }
  }

  /** Runs each message group's messages in order on one worker, and the others one per worker. */
  private void dispatch(SimpleConsumer consumer, List<MessageView> views) {
    long renewAt = System.nanoTime() + renewAfterNanos();
    Map<String, List<Held>> chains = new LinkedHashMap<>();
    int solo = 0;
    for (MessageView view : views) {
      Held h = new Held(consumer, view, renewAt);
      held.add(h);
      String key = view.getMessageGroup().map(g -> "g:" + g).orElse("m:" + solo++);
      chains.computeIfAbsent(key, k -> new ArrayList<>()).add(h);
    }
    for (List<Held> chain : chains.values()) {
      try {
        workers.execute(() -> runChain(chain));
      } catch (RejectedExecutionException closing) {
        // Closing: these come back to another consumer after their lease.
        chain.forEach(h -> h.settle(null, null));
        capacity.release(chain.size());
      }
    }
  }

  private void runChain(List<Held> chain) {
    for (Held h : chain) {
      try {
        if (!running) {
          // Closing: leave it to come back (to another instance) after its lease rather than
          // start a handler now.
          h.settle(null, null);
          continue;
        }
        if (h.view.getMessageGroup().isPresent()) {
          runInOrder(h);
          continue;
        }
        if (handle(h, h.view.getDeliveryAttempt()) == Verdict.ACK) {
          h.settle(Verdict.ACK, null);
        } else {
          h.settle(Verdict.RETRY, lease.retryDelay(h.view.getDeliveryAttempt()));
        }
      } finally {
        capacity.release();
      }
    }
  }

  /**
   * A message of a message group (FIFO topic) is retried here, after the lease's backoff, with the
   * delivery attempt counted locally, while its lease and those of the group's later messages are
   * renewed: the next message of the group runs only after this one was acknowledged. Handing a
   * retry back to the broker instead made it deliver later messages of the batch a second time,
   * after even later ones (FifoTransportTest caught 4,5,6 after 6). The handler parks an event that
   * keeps failing at its maxAttempts (an ACK); after {@value #MAX_LOCAL_ATTEMPTS} attempts without
   * a verdict the message is left to the broker.
   */
  private void runInOrder(Held h) {
    int attempt = h.view.getDeliveryAttempt();
    for (int n = 0; n < MAX_LOCAL_ATTEMPTS && running; n++, attempt++) {
      if (handle(h, attempt) == Verdict.ACK) {
        h.settle(Verdict.ACK, null);
        return;
      }
      sleepQuietly(lease.retryDelay(attempt).toMillis());
    }
    h.settle(null, null);
  }

  private Verdict handle(Held h, int attempt) {
    try {
      return handler.onMessage(GrpcMessages.toInbound(h.view, attempt));
    } catch (RuntimeException | Error unexpected) {
      // A bug in the handler, not a verdict: log it loudly and retry.
      log.error(
          "consume failed group={} messageId={}", spec.group(), h.view.getMessageId(), unexpected);
      return Verdict.RETRY;
    }
  }

  private long renewAfterNanos() {
    return lease.duration().toNanos() / 2;
  }

  /** Renews the lease of every held message whose renewal is due. */
  private void renewDue() {
    long now = System.nanoTime();
    for (Held h : held) {
      if (now - h.renewAt >= 0) {
        h.renewAt = now + renewAfterNanos();
        h.renew();
      }
    }
  }

  /** A received message until its verdict is settled with the broker. */
  private final class Held {
    final SimpleConsumer consumer;
    final MessageView view;
    volatile long renewAt;
    private CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
    private boolean settled;

    Held(SimpleConsumer consumer, MessageView view, long renewAt) {
      this.consumer = consumer;
      this.view = view;
      this.renewAt = renewAt;
    }

    synchronized void renew() {
      if (settled) {
        return;
      }
      last =
          last.thenCompose(x -> consumer.changeInvisibleDurationAsync(view, lease.duration()))
              .exceptionally(
                  e -> {
                    // The message may now come back to another consumer; the consume log makes
                    // that a DUPLICATE, not a second application.
                    log.warn(
                        "consumer group {}: lease renewal of {} failed: {}",
                        spec.group(),
                        view.getMessageId(),
                        e.toString());
                    return null;
                  });
    }

    /**
     * After any pending renewal: ACK acks; a delay hides the message for that long; neither leaves
     * it to come back when its lease ends.
     */
    synchronized void settle(Verdict verdict, Duration delay) {
      settled = true;
      held.remove(this);
      if (verdict == null && delay == null) {
        return;
      }
      CompletableFuture<Void> sent =
          last.thenCompose(
              x ->
                  verdict == Verdict.ACK
                      ? consumer.ackAsync(view)
                      : consumer.changeInvisibleDurationAsync(view, delay));
      settling.add(sent);
      sent.whenComplete((ok, e) -> settling.remove(sent))
          .whenComplete(
              (ok, e) -> {
                if (e != null) {
                  // Redelivered after its lease and recognised as a DUPLICATE (ack) or retried
                  // sooner or later than planned (backoff): harmless.
                  log.debug(
                      "consumer group {}: {} of {} failed: {}",
                      spec.group(),
                      verdict == Verdict.ACK ? "ack" : "backoff",
                      view.getMessageId(),
                      e.toString());
                }
              });
    }
  }

  private static void sleepQuietly(long ms) {
    try {
      TimeUnit.MILLISECONDS.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Empty: a simple consumer is not told the group's retry policy (the proxy still moves a message
   * to the group's dead-letter queue after it), so txmsg parks by the handlers' maxAttempts.
   */
  @Override
  public OptionalInt maxDeliveryAttempts(Duration wait) {
    return OptionalInt.empty();
  }

  @Override
  public void close() throws Exception {
    running = false;
    renewer.shutdownNow();
    // In-flight handlers finish and settle before the consumers close; closing the consumers ends
    // the pending long polls, after which the receivers see !running.
    workers.shutdown();
    if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
      log.warn("consumer group {}: handlers still running after 30 s at close", spec.group());
    }
    try {
      CompletableFuture.allOf(settling.toArray(new CompletableFuture<?>[0]))
          .get(5, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // Each failure was logged where it happened; an unsettled message comes back after its lease.
      log.debug("consumer group {}: settles pending at close: {}", spec.group(), e.toString());
    }
    GrpcMessages.closeAll(consumers, receivers);
  }
}
