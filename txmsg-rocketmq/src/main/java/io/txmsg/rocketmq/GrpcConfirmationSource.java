package io.txmsg.rocketmq;

import io.txmsg.transport.BatchHandler;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The confirm group over gRPC: one {@link SimpleConsumer} per topic (same group, each subscribed to
 * its topic only), each with one receiver thread that takes up to {@value #MAX_RECEIVE} messages
 * per call and hands batches to the {@link BatchHandler}; a batch is acked only after the handler
 * returned true.
 *
 * <p>Why not a push consumer: its listener answers per message, which held one consumption thread
 * per message for the flush interval and capped the confirmation rate below the producer's (the
 * backlog then aged into needless republishes). Why one consumer per topic: a simple consumer's
 * receive round-robins its topics, and a receive on an idle topic long-polls for seconds while the
 * busy topic waits. An unacked batch comes back after {@link #INVISIBLE}. See docs/architecture.md,
 * "Delivery confirmation".
 */
final class GrpcConfirmationSource implements Subscription {
  private static final Logger log = LoggerFactory.getLogger(GrpcConfirmationSource.class);

  /** Largest receive batch: the proxy's long-polling batch and the push consumer's default. */
  static final int MAX_RECEIVE = 32;

  /** How long a received, unacked message stays hidden before the broker hands it out again. */
  static final Duration INVISIBLE = Duration.ofSeconds(30);

  /**
   * Long-poll wait of one receive. The proxy raises anything shorter to 5 s and refuses a poll
   * whose deadline (this + the request timeout) leaves less than that.
   */
  private static final Duration AWAIT = Duration.ofSeconds(10);

  private final ConfirmationSpec spec;
  private final BatchHandler handler;
  private final List<SimpleConsumer> consumers = new ArrayList<>();
  private final List<Thread> receivers = new ArrayList<>();
  private volatile boolean running = true;

  GrpcConfirmationSource(ConfirmationSpec spec, BatchHandler handler) {
    this.spec = spec;
    this.handler = handler;
  }

  void start(ClientServiceProvider provider, ClientConfiguration config) throws Exception {
    try {
      for (String topic : spec.topics()) {
        SimpleConsumer consumer =
            provider
                .newSimpleConsumerBuilder()
                .setClientConfiguration(config)
                .setConsumerGroup(spec.group())
                .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .setAwaitDuration(AWAIT)
                .build();
        consumers.add(consumer);
        Thread t = new Thread(() -> receiveLoop(consumer, topic), spec.group() + "-" + topic);
        t.setDaemon(true);
        receivers.add(t);
      }
    } catch (Exception e) {
      close();
      throw e;
    }
    receivers.forEach(Thread::start);
  }

  private void receiveLoop(SimpleConsumer consumer, String topic) {
    int perReceive = Math.min(MAX_RECEIVE, spec.batchSize());
    while (running) {
      try {
        List<MessageView> batch = receiveBatch(consumer, perReceive);
        if (!batch.isEmpty()) {
          handOver(consumer, batch);
        }
      } catch (Exception e) {
        if (!running) {
          return;
        }
        // Unacked messages come back after INVISIBLE; nothing is lost by waiting.
        log.warn(
            "confirm group {} topic {}: {} (retrying in 1 s)", spec.group(), topic, e.toString());
        sleepQuietly(1000);
      }
    }
  }

  /** One receive; a full one means more is waiting: fill up to the batch size or flush interval. */
  private List<MessageView> receiveBatch(SimpleConsumer consumer, int perReceive) throws Exception {
    List<MessageView> batch = new ArrayList<>(consumer.receive(perReceive, INVISIBLE));
    long until = System.nanoTime() + spec.flushInterval().toNanos();
    List<MessageView> last = batch;
    while (running
        && last.size() == perReceive
        && batch.size() + perReceive <= spec.batchSize()
        && System.nanoTime() < until) {
      last = consumer.receive(perReceive, INVISIBLE);
      batch.addAll(last);
    }
    return batch;
  }

  private void handOver(SimpleConsumer consumer, List<MessageView> batch) {
    List<InboundMessage> messages = new ArrayList<>(batch.size());
    for (MessageView view : batch) {
      messages.add(GrpcMessages.toInbound(view));
    }
    boolean confirmed;
    try {
      confirmed = handler.onBatch(messages);
    } catch (RuntimeException e) {
      log.warn("confirm handler failed (batch redelivered in {}): {}", INVISIBLE, e.toString());
      confirmed = false;
    }
    if (!confirmed) {
      return;
    }
    for (MessageView view : batch) {
      consumer
          .ackAsync(view)
          .whenComplete(
              (ok, err) -> {
                if (err != null) {
                  // Redelivered after INVISIBLE and confirmed again: harmless.
                  log.debug("ack of {} failed: {}", view.getMessageId(), err.toString());
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

  @Override
  public OptionalInt maxDeliveryAttempts(Duration wait) {
    return OptionalInt.empty();
  }

  @Override
  public void close() throws Exception {
    running = false;
    // Closing the consumers ends their pending long polls; the receivers then see !running.
    GrpcMessages.closeAll(consumers, receivers);
  }
}
