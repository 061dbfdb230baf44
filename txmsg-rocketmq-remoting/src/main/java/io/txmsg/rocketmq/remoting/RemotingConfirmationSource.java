package io.txmsg.rocketmq.remoting;

import io.txmsg.transport.BatchHandler;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The confirm group over remoting: a {@link DefaultLitePullConsumer} with auto-commit off, one
 * receiver thread. It polls a batch (up to the batch size or the flush interval), hands it to the
 * {@link BatchHandler}, and commits the consumed offsets only after the handler returned true —
 * after the SENT update committed. A batch the handler refuses is offered again (the offsets stay
 * where they were), so a crash between the two at worst confirms a batch twice. No per-message ack.
 *
 * <p>A new confirm group starts an hour back ({@code CONSUME_FROM_TIMESTAMP}), so that rows sent
 * just before the store's first start are confirmed rather than left to the reconciler.
 */
final class RemotingConfirmationSource implements Subscription {
  private static final Logger log = LoggerFactory.getLogger(RemotingConfirmationSource.class);

  private final ConfirmationSpec spec;
  private final BatchHandler handler;
  private final DefaultLitePullConsumer consumer;
  private final Thread receiver;
  private volatile boolean running = true;

  RemotingConfirmationSource(
      ConfirmationSpec spec, BatchHandler handler, DefaultLitePullConsumer consumer) {
    this.spec = spec;
    this.handler = handler;
    this.consumer = consumer;
    this.receiver = new Thread(this::receiveLoop, spec.group());
    this.receiver.setDaemon(true);
  }

  void start() {
    receiver.start();
  }

  private void receiveLoop() {
    while (running) {
      try {
        List<MessageExt> batch = pollBatch();
        if (!batch.isEmpty()) {
          handOver(batch);
        }
      } catch (Exception e) {
        if (!running) {
          return;
        }
        log.warn("confirm group {}: {} (retrying in 1 s)", spec.group(), e.toString());
        sleepQuietly(1000);
      }
    }
  }

  private List<MessageExt> pollBatch() {
    List<MessageExt> batch = new ArrayList<>(consumer.poll(1000));
    long until = System.nanoTime() + spec.flushInterval().toNanos();
    while (running
        && !batch.isEmpty()
        && batch.size() < spec.batchSize()
        && System.nanoTime() < until) {
      List<MessageExt> more = consumer.poll(Math.max(1, (until - System.nanoTime()) / 1_000_000));
      if (more.isEmpty()) {
        break;
      }
      batch.addAll(more);
    }
    return batch;
  }

  private void handOver(List<MessageExt> batch) {
    List<InboundMessage> messages = new ArrayList<>(batch.size());
    for (MessageExt m : batch) {
      messages.add(RemotingMessages.toInbound(m, 1));
    }
    while (running) {
      boolean confirmed;
      try {
        confirmed = handler.onBatch(messages);
      } catch (RuntimeException e) {
        log.warn("confirm handler failed (batch offered again in 1 s): {}", e.toString());
        confirmed = false;
      }
      if (confirmed) {
        consumer.commitSync();
        return;
      }
      sleepQuietly(1000);
    }
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public OptionalInt maxDeliveryAttempts(Duration wait) {
    return OptionalInt.empty();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    receiver.join(3000);
    consumer.shutdown();
  }
}
