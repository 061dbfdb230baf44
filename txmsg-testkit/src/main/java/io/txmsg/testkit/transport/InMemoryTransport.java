package io.txmsg.testkit.transport;

import io.txmsg.api.PublishException;
import io.txmsg.api.Resolution;
import io.txmsg.transport.BatchHandler;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.TopicKind;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A broker in memory behind the transport port, for fast tests of the producer and consumer
 * runtimes without RocketMQ. It keeps the broker semantics the runtimes rely on:
 *
 * <ul>
 *   <li>a half message is delivered only once committed; an unresolved one is checked back (with
 *       the {@code TRANSACTION_CHECK_TIMES} property rising) every {@code checkInterval} by the
 *       check-back handler of a producer that declared its topic, rotating over them; after {@code
 *       maxChecks} UNKNOWN answers it is given up (never delivered), as the broker does;
 *   <li>a committed message is delivered to every subscribed consumer group once; RETRY redelivers
 *       after {@code retryDelay} with the attempt + 1, and after the group's {@code
 *       maxDeliveryAttempts} the message goes to the group's dead-letter queue, read by {@link
 *       #drainDeadLetters};
 *   <li>several subscriptions of one group (instances) share its messages: each goes to one of
 *       them;
 *   <li>the confirm source gets every message of its topics in batches and redelivers a batch the
 *       handler did not confirm.
 * </ul>
 *
 * Faults for tests: {@link #loseNextCommits(int)} drops commits as a lost oneway commit would,
 * {@link #failSends(boolean)} makes sends fail with a retryable error. Tag filters are not
 * evaluated (every message matches).
 */
public final class InMemoryTransport implements Transport {
  private final Duration checkInterval;
  private final int maxChecks;
  private final Duration retryDelay;
  private final int maxDeliveryAttempts;
  private final ScheduledExecutorService executor;
  private final AtomicLong ids = new AtomicLong();
  private final Map<String, PendingHalf> halves = new ConcurrentHashMap<>();
  private final List<OpenProducer> producers = new CopyOnWriteArrayList<>();
  private final Map<String, Group> groups = new ConcurrentHashMap<>();
  private final List<OutboundMessage> givenUp = new CopyOnWriteArrayList<>();
  private final List<InboundMessage> published = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger lostCommits =
      new java.util.concurrent.atomic.AtomicInteger();
  private volatile boolean failSends;
  private final Map<String, Integer> groupMaxAttempts = new ConcurrentHashMap<>();
  private final Map<String, TopicKind> topicKinds = new ConcurrentHashMap<>();
  private int checkRotation;

  /** Check every 200 ms, give up after 50 checks, redeliver after 50 ms, 4 delivery attempts. */
  public InMemoryTransport() {
    this(Duration.ofMillis(200), 50, Duration.ofMillis(50), 4);
  }

  public InMemoryTransport(
      Duration checkInterval, int maxChecks, Duration retryDelay, int maxDeliveryAttempts) {
    this.checkInterval = checkInterval;
    this.maxChecks = maxChecks;
    this.retryDelay = retryDelay;
    this.maxDeliveryAttempts = maxDeliveryAttempts;
    this.executor =
        Executors.newScheduledThreadPool(
            4,
            r -> {
              Thread t = new Thread(r, "in-memory-broker");
              t.setDaemon(true);
              return t;
            });
    long every = checkInterval.toMillis();
    executor.scheduleWithFixedDelay(this::checkBack, every, every, TimeUnit.MILLISECONDS);
  }

  /** The next {@code n} half-message commits return normally but never reach the "broker". */
  public void loseNextCommits(int n) {
    lostCommits.set(n);
  }

  /** The group's maximum delivery attempts (as a broker's retry policy says); default for all. */
  public void maxDeliveryAttempts(String group, int attempts) {
    groupMaxAttempts.put(group, attempts);
  }

  private int maxAttempts(String group) {
    return groupMaxAttempts.getOrDefault(group, maxDeliveryAttempts);
  }

  /**
   * Declares what kind of messages a topic accepts, so that {@link
   * ProducerChannel#acceptedKinds(String)} answers it (as the gRPC transport does from the broker's
   * route). Undeclared topics are "unknown"; sends are not checked against the kind.
   */
  public void declareTopic(String topic, TopicKind kind) {
    topicKinds.put(topic, kind);
  }

  /** While true, every send fails with a retryable {@link PublishException}. */
  public void failSends(boolean fail) {
    this.failSends = fail;
  }

  /** Half messages the broker gave up on after {@code maxChecks} UNKNOWN answers. */
  public List<OutboundMessage> givenUp() {
    return List.copyOf(givenUp);
  }

  /** Every message committed or sent so far, in order. */
  public List<InboundMessage> published() {
    return List.copyOf(published);
  }

  /** Half messages neither committed nor rolled back yet. */
  public int openHalfMessages() {
    return halves.size();
  }

  @Override
  public String name() {
    return "in-memory";
  }

  @Override
  public ProducerChannel openProducer(ProducerSpec spec) {
    OpenProducer p = new OpenProducer(spec);
    producers.add(p);
    return p;
  }

  @Override
  public Subscription subscribe(SubscriptionSpec spec, DeliveryHandler handler) {
    Group g = group(spec.group(), spec.tagsByTopic().keySet());
    Member m = new Member(handler, null);
    g.members.add(m);
    return new MemberSubscription(g, m, OptionalInt.of(maxAttempts(spec.group())));
  }

  @Override
  public Subscription confirmDeliveries(ConfirmationSpec spec, BatchHandler handler) {
    Group g = group(spec.group(), spec.topics());
    Member m = new Member(null, handler);
    g.members.add(m);
    return new MemberSubscription(g, m, OptionalInt.empty());
  }

  @Override
  public Subscription drainDeadLetters(String group, DeliveryHandler handler, Duration retry) {
    Group g = group("txmsg-dlq-" + group, Set.of(dlqTopic(group)));
    Member m = new Member(handler, null);
    g.members.add(m);
    return new MemberSubscription(g, m, OptionalInt.empty());
  }

  private static String dlqTopic(String group) {
    return "%DLQ%" + group;
  }

  private Group group(String name, Set<String> topics) {
    Group g = groups.computeIfAbsent(name, Group::new);
    g.topics.addAll(topics);
    return g;
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  // ---- the broker ----

  private InboundMessage publish(OutboundMessage m, String messageId) {
    InboundMessage in =
        new InboundMessage(m.topic(), messageId, m.properties(), m.body(), 1, Instant.now());
    published.add(in);
    for (Group g : groups.values()) {
      if (g.topics.contains(m.topic())) {
        executor.execute(() -> deliver(g, in));
      }
    }
    return in;
  }

  private void deliver(Group g, InboundMessage m) {
    Member member = g.next();
    if (member == null) {
      // No instance subscribed right now: keep it for later, as a broker would.
      executor.schedule(() -> deliver(g, m), retryDelay.toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    boolean acked;
    try {
      acked =
          member.handler != null
              ? member.handler.onMessage(m) == Verdict.ACK
              : member.batch.onBatch(List.of(m));
    } catch (RuntimeException e) {
      acked = false;
    }
    if (acked) {
      return;
    }
    if (member.handler != null && m.deliveryAttempt() >= maxAttempts(g.name)) {
      publish(
          new OutboundMessage(dlqTopic(g.name), null, List.of(), m.properties(), m.body()),
          m.messageId());
      return;
    }
    InboundMessage again =
        new InboundMessage(
            m.topic(),
            m.messageId(),
            m.properties(),
            m.body(),
            m.deliveryAttempt() + 1,
            m.bornTime());
    executor.schedule(() -> deliver(g, again), retryDelay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private synchronized void checkBack() {
    for (PendingHalf h : List.copyOf(halves.values())) {
      List<OpenProducer> candidates = new ArrayList<>();
      for (OpenProducer p : producers) {
        if (!p.closed.get() && p.spec.topics().contains(h.message.topic())) {
          candidates.add(p);
        }
      }
      if (candidates.isEmpty()) {
        continue;
      }
      h.checks++;
      Map<String, String> props = new HashMap<>(h.message.properties());
      props.put(EnvelopeCodec.CHECK_TIMES_PROPERTY, Integer.toString(h.checks));
      InboundMessage view =
          new InboundMessage(h.message.topic(), h.messageId, props, h.message.body(), 0, h.born);
      OpenProducer asked = candidates.get(checkRotation++ % candidates.size());
      Resolution r;
      try {
        r = asked.spec.checkbackHandler().check(view);
      } catch (RuntimeException e) {
        r = Resolution.UNKNOWN;
      }
      if (r == Resolution.COMMIT) {
        resolve(h.messageId, true);
      } else if (r == Resolution.ROLLBACK) {
        resolve(h.messageId, false);
      } else if (h.checks >= maxChecks) {
        halves.remove(h.messageId);
        givenUp.add(h.message);
      }
    }
  }

  private void resolve(String messageId, boolean commit) {
    PendingHalf h = halves.remove(messageId);
    if (h != null && commit) {
      publish(h.message, messageId);
    }
  }

  private String nextId() {
    return "mem-" + ids.incrementAndGet();
  }

  private void checkSend(OutboundMessage m) {
    if (failSends) {
      throw new PublishException(
          "send to " + m.topic() + " failed (injected)", "UNAVAILABLE", true, null);
    }
  }

  private final class OpenProducer implements ProducerChannel {
    final ProducerSpec spec;
    final AtomicBoolean closed = new AtomicBoolean();

    OpenProducer(ProducerSpec spec) {
      this.spec = spec;
    }

    @Override
    public HalfMessage sendHalf(OutboundMessage message) {
      checkSend(message);
      String id = nextId();
      halves.put(id, new PendingHalf(id, message, Instant.now()));
      return new HalfMessage() {
        @Override
        public String messageId() {
          return id;
        }

        @Override
        public void commit() {
          if (lostCommits.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return; // lost on the way, like a oneway endTransaction
          }
          resolve(id, true);
        }

        @Override
        public void rollback() {
          resolve(id, false);
        }
      };
    }

    @Override
    public String send(OutboundMessage message) {
      checkSend(message);
      String id = nextId();
      publish(message, id);
      return id;
    }

    @Override
    public Optional<Set<TopicKind>> acceptedKinds(String topic) {
      TopicKind kind = spec.topics().contains(topic) ? topicKinds.get(topic) : null;
      return kind == null ? Optional.empty() : Optional.of(Set.of(kind));
    }

    @Override
    public void close() {
      closed.set(true);
      producers.remove(this);
    }
  }

  private static final class PendingHalf {
    final String messageId;
    final OutboundMessage message;
    final Instant born;
    int checks;

    PendingHalf(String messageId, OutboundMessage message, Instant born) {
      this.messageId = messageId;
      this.message = message;
      this.born = born;
    }
  }

  private record Member(DeliveryHandler handler, BatchHandler batch) {}

  private static final class Group {
    final String name;
    final Set<String> topics = ConcurrentHashMap.newKeySet();
    final List<Member> members = new CopyOnWriteArrayList<>();
    private int next;

    Group(String name) {
      this.name = name;
    }

    synchronized Member next() {
      if (members.isEmpty()) {
        return null;
      }
      return members.get(next++ % members.size());
    }
  }

  private static final class MemberSubscription implements Subscription {
    private final Group group;
    private final Member member;
    private final OptionalInt maxAttempts;

    MemberSubscription(Group group, Member member, OptionalInt maxAttempts) {
      this.group = group;
      this.member = member;
      this.maxAttempts = maxAttempts;
    }

    @Override
    public OptionalInt maxDeliveryAttempts(Duration wait) {
      return maxAttempts;
    }

    @Override
    public void close() {
      group.members.remove(member);
    }
  }
}
