package io.txmsg.consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.consumer.CommandExecutor;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.api.consumer.ParkedEvent;
import io.txmsg.consumer.micrometer.MicrometerConsumerMetrics;
import io.txmsg.consumer.micrometer.MicrometerConsumerObservations;
import io.txmsg.store.JsonPayloadSerializer;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.store.tx.JdbcLocalTransactions;
import io.txmsg.store.tx.LocalTransactions;
import io.txmsg.store.tx.ReadCommitted;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Transports;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The txmsg consumer runtime without Spring: the handlers of one business database, one transport
 * subscription per consumer group, the dead-letter drains, the replay worker and the command
 * dispatcher.
 *
 * <pre>{@code
 * TxConsumers consumers = TxConsumers.builder()
 *     .dataSource(dataSource)
 *     .settings(new TxConsumerSettings().connection(BrokerConnection.endpoints("127.0.0.1:8081"))
 *         .group(ConsumerGroupConfig.of("points").subscribe("payment")))
 *     .handler(HandlerDefinition.of("points", "payment", "PaymentSucceeded",
 *         PaymentSucceeded.class, (event, ctx) -> credit(ctx.connection(), event)))
 *     .build();                                  // subscribes and starts consuming
 * consumers.close();
 * }</pre>
 *
 * <p>Startup errors (a bad setting, a second handler for the same group and event type, a handler
 * topic the group does not subscribe) are {@link InvalidSettingsException}s thrown by {@link
 * Builder#build()} before anything starts.
 */
public final class TxConsumers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TxConsumers.class);

  private final ConsumePipeline pipeline;
  private final ParkedReplay replay;
  private final Map<String, Map<String, ConsumePipeline.Route>> routes;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ScheduledExecutorService scheduler;
  private final CommandDispatcher dispatcher;
  private final ConsumeListener listener;
  private final Map<String, GroupConsumer> groupConsumers = new LinkedHashMap<>();
  private final Transport transport;
  private final boolean ownsTransport;

  private TxConsumers(Builder b, TxConsumerSettings s) {
    TxmsgStore store = SchemaMigrator.open(b.dataSource, s.tablePrefix(), s.autoCreateSchema());
    ConsumerTables tables = ConsumerTables.of(b.dataSource, store);
    this.listener = fanOut(b.listeners);
    this.routes = routes(b.handlers);
    Map<String, ConsumerGroupConfig> groups = groups(s, b.handlers);
    this.dispatcher = new CommandDispatcher(tables.commands(), Map.copyOf(b.executors), s);
    LocalTransactions tx =
        b.transactions != null ? b.transactions : new JdbcLocalTransactions(b.dataSource);
    ConsumerMetrics metrics = b.metrics;
    this.pipeline =
        new ConsumePipeline(
            tables,
            tx,
            ReadCommitted.isolationFor(b.dataSource),
            b.serializer,
            s.maxEventAge(),
            dispatcher::signal,
            metrics,
            listener,
            b.observations);
    this.replay =
        new ParkedReplay(tables.consumeLog(), tables.deadLetters(), routes, pipeline, listener);
    this.scheduler =
        Executors.newScheduledThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "txmsg-consumer-scheduler");
              t.setDaemon(true);
              return t;
            });
    this.ownsTransport = b.transport == null;
    this.transport = ownsTransport ? Transports.open(s.connection()) : b.transport;
    try {
      dispatcher.start();
      for (ConsumerGroupConfig g : groups.values()) {
        Map<String, ConsumePipeline.Route> groupRoutes = routes.getOrDefault(g.name(), Map.of());
        GroupConsumer gc =
            new GroupConsumer(g, groupRoutes, pipeline, listener, b.interceptor, metrics);
        closeables.add(gc);
        gc.start(transport, threads(s, g, groupRoutes), s.leasedDelivery(), s.retryPolicyWait());
        groupConsumers.put(g.name(), gc);
        if (s.dlqDrainEnabled()) {
          DlqDrain drain = new DlqDrain(g.name(), pipeline.parking(), listener);
          closeables.add(drain);
          drain.start(transport, s.dlqDrainRetryInterval());
        }
      }
      if (s.replayWorkerEnabled()) {
        ReplayWorker worker =
            new ReplayWorker(
                tables.replayRequests(), List.copyOf(groups.keySet()), replay::replay, metrics);
        long every = s.replayPollInterval().toMillis();
        scheduler.scheduleWithFixedDelay(
            () -> runQuietly(worker), every, every, java.util.concurrent.TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      close();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the consumers", e);
    } catch (RuntimeException | Error e) {
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
    return replay.replay(group, eventId, replayRequestId);
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
        throw new InvalidSettingsException(
            "handlers",
            "has two handlers for consumer group "
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
        throw new InvalidSettingsException(
            "groups[" + h.group() + "].subscriptions",
            "miss topic "
                + h.topic()
                + " read by handler "
                + h
                + "; add it to the group configuration");
      }
    }
    return groups;
  }

  private static ConsumeListener fanOut(List<ConsumeListener> listeners) {
    List<ConsumeListener> copy = List.copyOf(listeners);
    return new ConsumeListener() {
      @Override
      public void onOutcome(String group, String type, String id, ConsumeOutcome outcome) {
        for (ConsumeListener l : copy) {
          try {
            l.onOutcome(group, type, id, outcome);
          } catch (RuntimeException e) {
            log.warn("consume listener failed: {}", e.toString());
          }
        }
      }

      @Override
      public void onParked(ParkedEvent parked) {
        for (ConsumeListener l : copy) {
          try {
            l.onParked(parked);
          } catch (RuntimeException e) {
            log.warn("consume listener failed: {}", e.toString());
          }
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
        break;
      }
    }
    if (ownsTransport) {
      transport.close();
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
    private ConsumerMetrics metrics = ConsumerMetrics.NONE;
    private ConsumerObservations observations = ConsumerObservations.NONE;
    private Transport transport;

    /** The business database: consume log and handler writes share its transactions. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** Required; copied at {@link #build()}. */
    public Builder settings(TxConsumerSettings settings) {
      this.settings = settings;
      return this;
    }

    /**
     * The transport to use instead of the one {@link Transports#open} finds for the settings'
     * connection (e.g. the testkit's in-memory transport). The caller keeps ownership: {@link
     * TxConsumers#close()} does not close it.
     */
    public Builder transport(Transport transport) {
      this.transport = transport;
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

    /** Where metrics go; default {@link ConsumerMetrics#NONE}. */
    public Builder metrics(ConsumerMetrics metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * Micrometer meters ({@code txmsg.consume*}, see docs/architecture.md "Metrics") into {@code
     * registry}. Needs micrometer-core on the classpath.
     */
    public Builder meterRegistry(MeterRegistry registry) {
      return metrics(new MicrometerConsumerMetrics(registry));
    }

    /** Where observations go; default {@link ConsumerObservations#NONE}. */
    public Builder observations(ConsumerObservations observations) {
      this.observations = Objects.requireNonNull(observations, "observations");
      return this;
    }

    /**
     * The observation {@code txmsg.consume} on {@code registry} (docs/architecture.md, "Tracing"):
     * with a tracing bridge registered on it, the span around each handler call continues the trace
     * the event carries. Needs micrometer-observation on the classpath.
     */
    public Builder observationRegistry(ObservationRegistry registry) {
      return observations(new MicrometerConsumerObservations(registry));
    }

    /**
     * Validates, subscribes every group and starts consuming.
     *
     * @throws InvalidSettingsException naming a missing or bad setting, before anything starts
     * @throws io.txmsg.api.TransportException when the broker refuses a subscription
     */
    public TxConsumers build() {
      if (dataSource == null) {
        throw new InvalidSettingsException("dataSource", "is required");
      }
      if (settings == null) {
        throw new InvalidSettingsException("settings", "are required");
      }
      TxConsumerSettings sealed = settings.sealedCopy();
      if (transport == null) {
        sealed.connection().validate();
      }
      return new TxConsumers(this, sealed);
    }
  }
}
