package io.txmsg.producer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.PayloadSanitizer;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxMessagingException;
import io.txmsg.producer.micrometer.MicrometerProducerMetrics;
import io.txmsg.producer.micrometer.MicrometerProducerObservations;
import io.txmsg.store.Dialect;
import io.txmsg.store.JsonPayloadSerializer;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.store.tx.JdbcLocalTransactions;
import io.txmsg.store.tx.LocalTransactions;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.TopicKind;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Transports;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The txmsg producer runtime without Spring: one business database (a DataSource), one producer
 * channel on the transport declaring the store's topics with the check-back dispatcher, the
 * delivery confirmer and the reconciler.
 *
 * <pre>{@code
 * TxProducer producer = TxProducer.builder()
 *     .dataSource(dataSource)
 *     .settings(new TxProducerSettings()
 *         .connection(BrokerConnection.endpoints("127.0.0.1:8081"))
 *         .topics("payment"))
 *     .build();                       // starts the producer, confirmer and reconciler
 * TxResult<Long> r = producer.template().execute(message, ctx -> insertPayment(ctx.connection()));
 * producer.close();
 * }</pre>
 */
public final class TxProducer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TxProducer.class);

  private final Transport transport;
  private final boolean ownsTransport;
  private final ProducerChannel channel;
  private final DefaultTxMessageTemplate template;
  private final Reconciler reconciler;
  private final Subscription confirmer;
  private final Subscription giveUpDrain;
  private final SentRecorder sentRecorder;
  private final ScheduledExecutorService scheduler;
  private final InstanceLiveness liveness;

  private TxProducer(Builder b, TxProducerSettings s) {
    if (s.deliveryMode() == DeliveryMode.CDC) {
      refuseWithoutLog(b.dataSource);
    }
    TxmsgStore store = SchemaMigrator.open(b.dataSource, s.tablePrefix(), s.autoCreateSchema());
    Journal journal = new Journal(b.dataSource, store);
    this.ownsTransport = b.transport == null;
    this.transport = ownsTransport ? Transports.open(s.connection()) : b.transport;
    ProducerMetrics metrics = b.metrics;
    JournalCheckbackResolver journalResolver =
        new JournalCheckbackResolver(b.dataSource, store, s, metrics);
    ProducerObservations observations = b.observations;
    CheckbackDispatcher dispatcher =
        new CheckbackDispatcher(b.resolvers, journalResolver, observations);
    ProducerChannel ch = null;
    Subscription c = null;
    Set<String> fifo = Set.of();
    try {
      // The check-back dispatcher stays in OUTBOX mode: half messages sent before a switch of
      // modes are still answered from the journal.
      ch = transport.openProducer(new ProducerSpec(s.storeId(), s.allTopics(), dispatcher));
      fifo = checkTopicKinds(ch, s);
      if (s.confirmation() == DeliveryConfirmation.BROKER_ACK && !ch.confirmsCommits()) {
        throw new InvalidSettingsException(
            "confirmation",
            "BROKER_ACK needs a transport that reads the broker's answer to the commit (remoting,"
                + " a NameServer connection); this one commits oneway: use CONSUMER");
      }
      if (s.confirmation() == DeliveryConfirmation.CONSUMER) {
        c = DeliveryConfirmer.start(transport, journal, s);
      }
    } catch (RuntimeException e) {
      closeQuietly(ch);
      if (ownsTransport) {
        transport.close();
      }
      throw e;
    }
    this.channel = ch;
    this.confirmer = c;
    LocalTransactions tx =
        b.transactions != null ? b.transactions : new JdbcLocalTransactions(b.dataSource);
    this.sentRecorder = new SentRecorder(journal, s);
    this.liveness = new InstanceLiveness(b.dataSource, store, s, metrics);
    ImmediatePublisher publisher =
        new ImmediatePublisher(
            channel, journal, sentRecorder, b.interceptor, metrics, observations);
    this.template =
        new DefaultTxMessageTemplate(
            s,
            channel,
            tx,
            b.dataSource,
            store,
            b.serializer,
            b.sanitizer,
            b.interceptor,
            metrics,
            fifo,
            publisher,
            observations,
            liveness.instanceId());
    this.reconciler =
        new Reconciler(b.dataSource, store, s, channel, metrics, observations, liveness);
    // Where the transport can read the broker's give-up topic (remoting), a committed row whose
    // half message the broker stopped checking goes out at once, not after republishAfter.
    this.giveUpDrain =
        transport
            .drainGivenUp(
                s.storeId(),
                new GivenUpRepublisher(journal, reconciler, s, metrics),
                Duration.ofSeconds(5))
            .orElse(null);
    this.scheduler = schedule(s, journal, metrics, b.gaugeInterval);
    log.info("txmsg producer started {} transport={}", s, transport.name());
  }

  /**
   * CDC needs a database log a relay can read; H2 has none. Checked before the schema is opened or
   * anything connects, so nothing starts.
   */
  private static void refuseWithoutLog(DataSource dataSource) {
    Dialect dialect;
    try (Connection c = dataSource.getConnection()) {
      dialect = Dialect.detect(c);
    } catch (SQLException e) {
      throw new TxMessagingException("cannot read the database type: " + e.getMessage(), e);
    }
    if (dialect == Dialect.H2) {
      throw new InvalidSettingsException(
          "deliveryMode",
          "CDC needs a database log a relay can read (PostgreSQL with wal_level=logical, MariaDB"
              + " with binlog_format=ROW); the dataSource is H2, which has none: use OUTBOX or"
              + " HALF_MESSAGE on H2");
    }
  }

  /**
   * A topic of the wrong kind would pass the build and fail at the first send (the client rejects
   * it: "message type not match"). Where the transport can tell a topic's kind, refuse it now;
   * where it cannot (an empty answer), nothing is checked. HALF_MESSAGE: {@code topics} take half
   * messages (TRANSACTION); OUTBOX and CDC: {@code topics} are NORMAL or FIFO; {@code
   * publishTopics} are NORMAL or FIFO in both modes.
   *
   * @return the topics known to be FIFO (their rows get a message group)
   */
  private static Set<String> checkTopicKinds(ProducerChannel ch, TxProducerSettings s) {
    boolean outbox = s.deliveryMode() != DeliveryMode.HALF_MESSAGE;
    Set<String> fifo = new TreeSet<>();
    for (String topic : new TreeSet<>(s.allTopics())) {
      Optional<Set<TopicKind>> kinds = ch.acceptedKinds(topic);
      if (kinds.isEmpty()) {
        continue;
      }
      boolean halfTopic = !outbox && s.topics().contains(topic);
      if (halfTopic && !kinds.get().contains(TopicKind.TRANSACTION)) {
        throw new InvalidSettingsException(
            "topics",
            LogSafe.quote(topic)
                + " is "
                + describe(kinds.get())
                + "; deliveryMode HALF_MESSAGE sends half messages, which need a "
                + TopicKind.TRANSACTION
                + " topic (or use deliveryMode OUTBOX with a NORMAL or FIFO topic)");
      }
      if (!halfTopic
          && !kinds.get().contains(TopicKind.NORMAL)
          && !kinds.get().contains(TopicKind.FIFO)) {
        throw new InvalidSettingsException(
            s.topics().contains(topic) ? "topics" : "publishTopics",
            LogSafe.quote(topic)
                + " is "
                + describe(kinds.get())
                + "; "
                + (outbox ? "deliveryMode " + s.deliveryMode() + " sends" : "ctx.publish sends")
                + " plain or FIFO messages, which need a NORMAL or FIFO topic");
      }
      if (!halfTopic && kinds.get().contains(TopicKind.FIFO)) {
        fifo.add(topic);
      }
    }
    return fifo;
  }

  private static String describe(Set<TopicKind> kinds) {
    if (kinds.isEmpty()) {
      return "a topic of a kind txmsg does not know";
    }
    String names = kinds.stream().map(Enum::name).sorted().collect(Collectors.joining("/"));
    return kinds.size() == 1 ? "a " + names + " topic" : "a topic accepting " + names;
  }

  private ScheduledExecutorService schedule(
      TxProducerSettings s, Journal journal, ProducerMetrics metrics, Duration gauges) {
    if (!s.reconcilerEnabled() && !metrics.wantsJournalBacklog()) {
      return null;
    }
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "txmsg-reconciler-" + s.storeId());
              t.setDaemon(true);
              return t;
            });
    if (s.reconcilerEnabled()) {
      long every = s.reconcileInterval().toMillis();
      scheduler.scheduleWithFixedDelay(this::reconcileQuietly, every, every, TimeUnit.MILLISECONDS);
    }
    if (metrics.wantsJournalBacklog()) {
      JournalGauges g = new JournalGauges(journal, metrics, s.allTopics());
      scheduler.scheduleWithFixedDelay(g::refresh, 0, gauges.toMillis(), TimeUnit.MILLISECONDS);
    }
    return scheduler;
  }

  private void reconcileQuietly() {
    try {
      reconciler.drain();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing: the claimed rows' leases expire
    } catch (Exception e) {
      // The next round retries; a failing database shows up here every interval.
      log.warn("reconcile round failed: {}", e.toString());
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The template applications call. */
  public TxMessageTemplate template() {
    return template;
  }

  /** The reconciler, e.g. to run a round now (operators, tests). */
  public Reconciler reconciler() {
    return reconciler;
  }

  /** Stops the reconciler, the confirmer and the producer (in-flight sends finish first). */
  @Override
  public void close() throws Exception {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
    reconciler.close();
    liveness.close();
    Exception first = null;
    for (AutoCloseable c : new AutoCloseable[] {giveUpDrain, confirmer, sentRecorder, channel}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (ownsTransport) {
      transport.close();
    }
    if (first != null) {
      throw first;
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (Exception e) {
      log.debug("close after a failed start: {}", e.toString());
    }
  }

  /** Builds and starts {@link TxProducer}. */
  public static final class Builder {
    private DataSource dataSource;
    private TxProducerSettings settings;
    private Transport transport;
    private LocalTransactions transactions;
    private final List<CheckbackResolver> resolvers = new ArrayList<>();
    private PayloadSerializer serializer = new JsonPayloadSerializer();
    private PayloadSanitizer sanitizer = PayloadSanitizer.none();
    private ProducerInterceptor interceptor = new ProducerInterceptor() {};
    private ProducerMetrics metrics = ProducerMetrics.NONE;
    private ProducerObservations observations = ProducerObservations.NONE;
    private Duration gaugeInterval = Duration.ofSeconds(15);

    private Builder() {}

    /** Required: the business database holding the txmsg tables. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** Required; copied at {@link #build()}. */
    public Builder settings(TxProducerSettings settings) {
      this.settings = settings;
      return this;
    }

    /**
     * The transport to use instead of the one {@link Transports#open} finds for the settings'
     * connection (e.g. the testkit's in-memory transport). The caller keeps ownership: {@link
     * TxProducer#close()} does not close it.
     */
    public Builder transport(Transport transport) {
      this.transport = transport;
      return this;
    }

    /** How local transactions run; default plain JDBC on the DataSource. */
    public Builder transactions(LocalTransactions transactions) {
      this.transactions = transactions;
      return this;
    }

    /** An application resolver, routed by its topics/eventTypes before the journal resolver. */
    public Builder resolver(CheckbackResolver resolver) {
      this.resolvers.add(resolver);
      return this;
    }

    /** Default JSON (Jackson). */
    public Builder serializer(PayloadSerializer serializer) {
      this.serializer = serializer;
      return this;
    }

    /** Default: none. */
    public Builder sanitizer(PayloadSanitizer sanitizer) {
      this.sanitizer = sanitizer;
      return this;
    }

    /** Fault injection and observation; default none. */
    public Builder interceptor(ProducerInterceptor interceptor) {
      this.interceptor = interceptor;
      return this;
    }

    /** Where metrics go; default {@link ProducerMetrics#NONE}. */
    public Builder metrics(ProducerMetrics metrics) {
      this.metrics = metrics;
      return this;
    }

    /**
     * Micrometer meters ({@code txmsg.*}, see docs/architecture.md "Metrics") into {@code
     * registry}; the journal gauges are refreshed every {@code gaugeInterval} by one indexed query.
     * Needs micrometer-core on the classpath.
     */
    public Builder meterRegistry(MeterRegistry registry, Duration gaugeInterval) {
      this.metrics = new MicrometerProducerMetrics(registry);
      this.gaugeInterval = gaugeInterval;
      return this;
    }

    public Builder meterRegistry(MeterRegistry registry) {
      return meterRegistry(registry, Duration.ofSeconds(15));
    }

    /**
     * Where observations go; default {@link ProducerObservations#NONE} (no observation, no trace
     * header).
     */
    public Builder observations(ProducerObservations observations) {
      this.observations = observations;
      return this;
    }

    /**
     * Observations {@code txmsg.execute}, {@code txmsg.publish}, {@code txmsg.checkback} on {@code
     * registry} (docs/architecture.md, "Tracing"): with a tracing bridge registered on it, the
     * caller's trace context is stored with each event and continued by the consumer. Needs
     * micrometer-observation on the classpath.
     */
    public Builder observationRegistry(ObservationRegistry registry) {
      return observations(new MicrometerProducerObservations(registry));
    }

    /**
     * Validates, connects and starts.
     *
     * @throws InvalidSettingsException naming a missing or bad setting, before anything starts
     *     ({@code deliveryMode} for CDC on H2)
     * @throws io.txmsg.api.TransportException when the broker cannot be reached or a topic does not
     *     exist
     */
    public TxProducer build() {
      if (dataSource == null) {
        throw new InvalidSettingsException("dataSource", "is required");
      }
      if (settings == null) {
        throw new InvalidSettingsException("settings", "are required");
      }
      if (metrics == null) {
        throw new InvalidSettingsException("metrics", "must not be null");
      }
      if (observations == null) {
        throw new InvalidSettingsException("observations", "must not be null");
      }
      TxProducerSettings sealed = settings.sealedCopy();
      if (transport == null) {
        sealed.connection().validate();
      }
      return new TxProducer(this, sealed);
    }
  }
}
