package io.txmsg.consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.consumer.CommandExecutor;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.rocketmq.HeadersCodec;
import io.txmsg.rocketmq.JdbcLocalTransactions;
import io.txmsg.rocketmq.JsonPayloadSerializer;
import io.txmsg.rocketmq.LocalTransactions;
import io.txmsg.store.ConsumeLogMapper;
import io.txmsg.store.ConsumeLogRow;
import io.txmsg.store.DeadLetterMapper;
import io.txmsg.store.DeadLetterRow;
import io.txmsg.store.SchemaInstaller;
import io.txmsg.store.StoreTransactions;
import io.txmsg.store.TxmsgStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import javax.sql.DataSource;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientConfigurationBuilder;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The txmsg consumer side without Spring: the handlers of one business database, one RocketMQ
 * PushConsumer per consumer group, the %DLQ% drains and the command dispatcher.
 *
 * <pre>{@code
 * TxConsumers consumers = TxConsumers.builder()
 *     .dataSource(dataSource)
 *     .settings(new TxConsumerSettings().endpoints("127.0.0.1:8081")
 *         .group(ConsumerGroupConfig.of("points").subscribe("payment")))
 *     .handler(HandlerDefinition.of("points", "payment", "PaymentSucceeded",
 *         PaymentSucceeded.class, (event, ctx) -> credit(ctx.connection(), event)))
 *     .build();                                  // subscribes and starts consuming
 * consumers.close();
 * }</pre>
 *
 * <p>Startup errors (a second handler for the same group and event type, a handler topic the group
 * does not subscribe) are {@link IllegalStateException}s thrown by {@link Builder#build()}.
 */
public final class TxConsumers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TxConsumers.class);

  private final TxmsgStore store;
  private final StoreTransactions storeTx;
  private final ConsumePipeline pipeline;
  private final Map<String, Map<String, ConsumePipeline.Route>> routes;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ScheduledExecutorService scheduler;
  private final CommandDispatcher dispatcher;
  private final ConsumeListener listener;
  private final Map<String, GroupConsumer> groupConsumers = new LinkedHashMap<>();

  private TxConsumers(Builder b) throws Exception {
    TxConsumerSettings s = b.settings;
    if (s.autoCreateSchema()) {
      SchemaInstaller.installIfMissing(b.dataSource, s.tablePrefix());
    }
    this.store = TxmsgStore.detect(b.dataSource, s.tablePrefix());
    this.storeTx = new StoreTransactions(b.dataSource, store);
    this.listener = fanOut(b.listeners);
    this.routes = routes(b.handlers);
    Map<String, ConsumerGroupConfig> groups = groups(s, b.handlers);
    this.dispatcher = new CommandDispatcher(storeTx, Map.copyOf(b.executors), s);
    LocalTransactions tx =
        b.transactions != null ? b.transactions : new JdbcLocalTransactions(b.dataSource);
    ConsumerMetrics metrics = new ConsumerMetrics(b.meterRegistry);
    this.pipeline =
        new ConsumePipeline(
            store, storeTx, tx, b.serializer, s.maxEventAge(), dispatcher::signal, metrics);
    this.scheduler =
        Executors.newScheduledThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "txmsg-consumer-scheduler");
              t.setDaemon(true);
              return t;
            });
    try {
      dispatcher.start();
      ClientServiceProvider provider = ClientServiceProvider.loadService();
      ClientConfiguration config = clientConfiguration(s);
      for (ConsumerGroupConfig g : groups.values()) {
        Map<String, ConsumePipeline.Route> groupRoutes = routes.getOrDefault(g.name(), Map.of());
        GroupConsumer gc =
            new GroupConsumer(g, groupRoutes, pipeline, listener, b.interceptor, metrics);
        closeables.add(gc);
        gc.start(provider, config, threads(s, g, groupRoutes), s.retryPolicyWait());
        groupConsumers.put(g.name(), gc);
        if (s.dlqDrainEnabled()) {
          DlqDrain drain = new DlqDrain(g.name(), pipeline.parking(), listener);
          closeables.add(drain);
          drain.start(provider, config, scheduler, s.dlqDrainRetryInterval().toMillis());
        }
      }
      if (s.replayWorkerEnabled()) {
        ReplayWorker worker =
            new ReplayWorker(storeTx, List.copyOf(groups.keySet()), this::replay, metrics);
        long every = s.replayPollInterval().toMillis();
        scheduler.scheduleWithFixedDelay(
            () -> runQuietly(worker), every, every, java.util.concurrent.TimeUnit.MILLISECONDS);
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
    log.info("txmsg consumers started {}", s);
  }

  private static void runQuietly(ReplayWorker worker) {
    try {
      worker.runOnce();
    } catch (Exception e) {
      // The next poll retries; a request left RUNNING by a crash is visible in the audit table.
      log.warn("replay worker round failed: {}", e.toString());
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Replays one parked event of a group through the same handler pipeline: the consume-log row goes
   * PARKED → PROCESSING inside the handler's transaction and the dead letter is marked REPLAYED in
   * that same transaction, so a late redelivery and a replay never both apply it. Never sends
   * anything to the topic: other groups are not affected.
   *
   * @param replayRequestId the audit id recorded on the dead letter
   */
  public ReplayResult replay(String group, String eventId, String replayRequestId) {
    Objects.requireNonNull(replayRequestId, "replayRequestId");
    DeadLetterRow row;
    try {
      row = storeTx.run(DeadLetterMapper.class, m -> m.findReplayable(group, eventId));
    } catch (Exception e) {
      return new ReplayResult(ReplayResult.Status.FAILED, "database: " + e);
    }
    if (row == null) {
      return new ReplayResult(
          ReplayResult.Status.NOT_REPLAYABLE, "no parked message of " + group + "/" + eventId);
    }
    IncomingEvent e;
    try {
      e =
          EnvelopeDecoder.decode(
              HeadersCodec.decode(row.getHeaders()),
              row.getPayload(),
              row.getTopic(),
              row.getBrokerMessageId(),
              0);
    } catch (MalformedEventException m) {
      return failedReplay(row, m, "parked message is not a valid event: " + m.getMessage());
    }
    if ("TOO_OLD".equals(row.getReason())) {
      ReplayResult archived = discardIfArchived(row, replayRequestId);
      if (archived != null) {
        return archived;
      }
      // Not in the archive: never applied, so it is applied now without the age check.
    }
    ConsumePipeline.Route route = routes.getOrDefault(group, Map.of()).get(e.eventType());
    if (route == null) {
      return new ReplayResult(
          ReplayResult.Status.FAILED, "no handler for " + e.eventType() + " in group " + group);
    }
    try {
      ConsumeOutcome outcome = pipeline.replay(group, e, route, replayRequestId);
      listener.onOutcome(group, e.eventType(), eventId, outcome);
      return switch (outcome) {
        case APPLIED -> new ReplayResult(ReplayResult.Status.REPLAYED, "applied");
        case STALE -> new ReplayResult(ReplayResult.Status.SKIPPED_STALE, "stale version");
        default ->
            new ReplayResult(
                ReplayResult.Status.NOT_REPLAYABLE, "no longer parked (" + outcome + ")");
      };
    } catch (ConsumePipeline.ReplayFailedException f) {
      return failedReplay(row, f.getCause(), f.getCause().toString());
    } catch (PayloadDecodingException p) {
      return failedReplay(row, p, p.getMessage());
    }
  }

  /**
   * A TOO_OLD event whose consume-log row was archived was applied before: its dead letter is
   * discarded, not replayed. Returns null when the archive has no row for it.
   */
  private ReplayResult discardIfArchived(DeadLetterRow row, String replayRequestId) {
    try {
      ConsumeLogRow archived =
          storeTx.run(
              ConsumeLogMapper.class,
              m -> m.findArchived(row.getConsumerGroup(), row.getEventId()));
      if (archived == null) {
        return null;
      }
      String note =
          "duplicate: consume_log_archive has it as "
              + archived.getStatus()
              + (archived.getRequestHash().equals(row.getRequestHash()) ? "" : " (other hash)");
      storeTx.run(
          DeadLetterMapper.class,
          m ->
              m.discard(
                  row.getConsumerGroup(),
                  row.getEventId(),
                  row.getRequestHash(),
                  replayRequestId,
                  note));
      return new ReplayResult(ReplayResult.Status.DUPLICATE, note);
    } catch (Exception e) {
      return new ReplayResult(ReplayResult.Status.FAILED, "archive check failed: " + e);
    }
  }

  private ReplayResult failedReplay(DeadLetterRow row, Throwable error, String message) {
    try {
      storeTx.run(
          DeadLetterMapper.class,
          m ->
              m.recordReplayFailure(
                  row.getConsumerGroup(),
                  row.getEventId(),
                  row.getRequestHash(),
                  error.getClass().getName(),
                  Parking.truncate(message, 1000)));
    } catch (Exception e) {
      log.warn("replay failure not recorded eventId={}: {}", row.getEventId(), e.toString());
    }
    return new ReplayResult(ReplayResult.Status.FAILED, message);
  }

  /** The max delivery attempts the broker announced for a group (after which it uses %DLQ%). */
  public int brokerMaxAttempts(String group) {
    GroupConsumer gc = groupConsumers.get(group);
    if (gc == null) {
      throw new IllegalArgumentException("unknown consumer group " + group);
    }
    return gc.brokerMaxAttempts();
  }

  /** Runs one round of the command dispatcher now (tests and tools); returns commands claimed. */
  public int dispatchCommandsOnce() throws Exception {
    return dispatcher.runOnce();
  }

  public TxmsgStore store() {
    return store;
  }

  private static ClientConfiguration clientConfiguration(TxConsumerSettings s) {
    ClientConfigurationBuilder cb =
        ClientConfiguration.newBuilder()
            .setEndpoints(s.endpoints())
            .setRequestTimeout(s.requestTimeout());
    if (s.accessKey() != null) {
      cb.setCredentialProvider(new StaticSessionCredentialsProvider(s.accessKey(), s.secretKey()));
    }
    return cb.build();
  }

  private static int threads(
      TxConsumerSettings s, ConsumerGroupConfig g, Map<String, ConsumePipeline.Route> routes) {
    int threads = g.consumptionThreads() > 0 ? g.consumptionThreads() : s.consumptionThreads();
    for (ConsumePipeline.Route r : routes.values()) {
      threads = Math.max(threads, r.definition().concurrency());
    }
    return threads;
  }

  private static Map<String, Map<String, ConsumePipeline.Route>> routes(
      List<HandlerDefinition<?>> handlers) {
    Map<String, Map<String, ConsumePipeline.Route>> byGroup = new LinkedHashMap<>();
    for (HandlerDefinition<?> h : handlers) {
      Map<String, ConsumePipeline.Route> group =
          byGroup.computeIfAbsent(h.group(), k -> new HashMap<>());
      ConsumePipeline.Route previous =
          group.putIfAbsent(h.eventType(), ConsumePipeline.Route.of(h));
      if (previous != null) {
        throw new IllegalStateException(
            "two handlers for consumer group "
                + h.group()
                + " and event type "
                + h.eventType()
                + ": "
                + previous.definition()
                + " and "
                + h);
      }
    }
    return byGroup;
  }

  /**
   * The declared groups; a group only named by handlers subscribes their topics with "*" (the same
   * on every instance only if every instance has the same handlers: declare groups in production).
   */
  private static Map<String, ConsumerGroupConfig> groups(
      TxConsumerSettings s, List<HandlerDefinition<?>> handlers) {
    Map<String, ConsumerGroupConfig> groups = new LinkedHashMap<>(s.groups());
    for (HandlerDefinition<?> h : handlers) {
      ConsumerGroupConfig g = groups.get(h.group());
      if (g == null) {
        g = ConsumerGroupConfig.of(h.group());
        groups.put(h.group(), g);
        log.warn(
            "consumer group {} is not declared in the settings: subscribing the topics of its"
                + " handlers; declare it so every instance subscribes the same",
            h.group());
      }
      if (!s.groups().containsKey(h.group())) {
        g.subscribe(h.topic());
      } else if (!g.subscriptions().containsKey(h.topic())) {
        throw new IllegalStateException(
            "handler "
                + h
                + " reads topic "
                + h.topic()
                + " but group "
                + h.group()
                + " does not subscribe it; add it to the group configuration");
      }
    }
    return groups;
  }

  private static ConsumeListener fanOut(List<ConsumeListener> listeners) {
    List<ConsumeListener> copy = List.copyOf(listeners);
    return (group, type, id, outcome) -> {
      for (ConsumeListener l : copy) {
        try {
          l.onOutcome(group, type, id, outcome);
        } catch (RuntimeException e) {
          log.warn("consume listener failed: {}", e.toString());
        }
      }
    };
  }

  /**
   * Stops consuming: the command dispatcher, the replay worker and every push consumer. The push
   * consumers are closed in parallel: each waits for its long poll (seconds), one after another
   * that would add up.
   */
  @Override
  public void close() {
    scheduler.shutdownNow();
    dispatcher.close();
    List<Thread> closing = new ArrayList<>();
    for (AutoCloseable c : closeables) {
      Thread t =
          new Thread(
              () -> {
                try {
                  c.close();
                } catch (Exception e) {
                  log.warn("close failed: {}", e.toString());
                }
              },
              "txmsg-consumer-close");
      t.start();
      closing.add(t);
    }
    for (Thread t : closing) {
      try {
        t.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Builds and starts {@link TxConsumers}. */
  public static final class Builder {
    private DataSource dataSource;
    private TxConsumerSettings settings;
    private LocalTransactions transactions;
    private PayloadSerializer serializer = new JsonPayloadSerializer();
    private final List<HandlerDefinition<?>> handlers = new ArrayList<>();
    private final Map<String, CommandExecutor> executors = new HashMap<>();
    private final List<ConsumeListener> listeners = new CopyOnWriteArrayList<>();
    private ConsumerInterceptor interceptor = new ConsumerInterceptor() {};
    private MeterRegistry meterRegistry;

    /** The business database: consume log and handler writes share its transactions. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    public Builder settings(TxConsumerSettings settings) {
      this.settings = settings;
      return this;
    }

    /** How local transactions are run; default plain JDBC on the DataSource. */
    public Builder transactions(LocalTransactions transactions) {
      this.transactions = transactions;
      return this;
    }

    public Builder serializer(PayloadSerializer serializer) {
      this.serializer = Objects.requireNonNull(serializer, "serializer");
      return this;
    }

    public Builder handler(HandlerDefinition<?> handler) {
      handlers.add(handler);
      return this;
    }

    public Builder commandExecutor(String commandType, CommandExecutor executor) {
      if (executors.putIfAbsent(commandType, executor) != null) {
        throw new IllegalStateException("two executors for command type " + commandType);
      }
      return this;
    }

    public Builder listener(ConsumeListener listener) {
      listeners.add(listener);
      return this;
    }

    public Builder interceptor(ConsumerInterceptor interceptor) {
      this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
      return this;
    }

    /** Micrometer registry for the {@code txmsg.consume*} meters; default none. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = registry;
      return this;
    }

    /** Validates, subscribes every group and starts consuming. */
    public TxConsumers build() throws Exception {
      Objects.requireNonNull(dataSource, "dataSource");
      Objects.requireNonNull(settings, "settings");
      settings.validate();
      return new TxConsumers(this);
    }
  }
}
