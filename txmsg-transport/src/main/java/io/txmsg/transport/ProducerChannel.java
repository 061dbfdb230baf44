package io.txmsg.transport;

import io.txmsg.api.PublishException;
import java.util.Optional;
import java.util.Set;

/**
 * A store's producer on a transport: sends half messages for the declared topics and answers their
 * check-backs through the {@link ProducerSpec#checkbackHandler()} it was opened with.
 *
 * <p>Errors are {@link PublishException}s whose {@link PublishException#errorCode()} and {@link
 * PublishException#retryable()} come from one mapping per implementation (e.g. TOPIC_NOT_FOUND,
 * PERMISSION_DENIED, TOO_LARGE and BAD_REQUEST are permanent; timeouts and throttling retryable).
 */
public interface ProducerChannel extends AutoCloseable {
  /**
   * Sends a half message and returns its handle. When this throws, nothing was stored by the broker
   * as far as the client knows; a half message that was stored anyway is settled by the check-back
   * (its attempt has no row: fenced after enough checks).
   */
  HalfMessage sendHalf(OutboundMessage message) throws PublishException;

  /**
   * Sends a normal message synchronously and returns the broker's message id once the broker has
   * accepted it. Not for TRANSACTION topics (the gRPC client rejects a plain send there: use {@link
   * #sendHalf} and commit).
   */
  String send(OutboundMessage message) throws PublishException;

  /**
   * Whether {@link HalfMessage#commitAndConfirm()} reads the broker's own answer to the commit
   * (remoting) rather than sending it oneway and answering {@code false} (gRPC, the default).
   */
  default boolean confirmsCommits() {
    return false;
  }

  /**
   * The kinds of message the broker says the topic accepts, if the transport can tell; empty when
   * it cannot (the default), which callers must treat as "unknown", not as "wrong". {@code
   * TxProducer.build()} uses it to refuse, at start instead of at the first send, a topic of the
   * wrong kind for its delivery mode (TRANSACTION for half messages, NORMAL or FIFO for OUTBOX and
   * {@code ctx.publish}), and to learn which topics are FIFO (their rows get a message group). Only
   * topics this channel was opened with are answered.
   */
  default Optional<Set<TopicKind>> acceptedKinds(String topic) {
    return Optional.empty();
  }

  /** Stops sending and answering check-backs. */
  @Override
  void close() throws Exception;
}
