package io.txmsg.rocketmq;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.PayloadSanitizer;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.store.SchemaInstaller;
import io.txmsg.store.StoreTransactions;
import io.txmsg.store.TxmsgStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientConfigurationBuilder;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The txmsg producer side without Spring: one business database (a DataSource), one RocketMQ
 * producer declaring the store's topics with the check-back dispatcher, the delivery confirmer and
 * the reconciler.
 *
 * <pre>{@code
 * TxMessaging txmsg = TxMessaging.builder()
 *     .dataSource(dataSource)
 *     .settings(new TxMessagingSettings().endpoints("127.0.0.1:8081").topics("payment"))
 *     .build();                       // starts the producer, confirmer and reconciler
 * TxResult<Long> r = txmsg.template().execute(message, ctx -> insertPayment(ctx.connection()));
 * txmsg.close();
 * }</pre>
 */
public final class TxMessaging implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TxMessaging.class);

  private final Producer producer;
  private final TxMessageProducer template;
  private final Reconciler reconciler;
  private final DeliveryConfirmer confirmer;
  private final ScheduledExecutorService scheduler;
  private final TxmsgStore store;

  private TxMessaging(Builder b) throws Exception {
    TxMessagingSettings s = b.settings; // validated by Builder.build()
    if (s.autoCreateSchema()) {
      SchemaInstaller.installIfMissing(b.dataSource, s.tablePrefix());
    }
    this.store = TxmsgStore.detect(b.dataSource, s.tablePrefix());
    ClientServiceProvider provider = ClientServiceProvider.loadService();
    ClientConfigurationBuilder cb =
        ClientConfiguration.newBuilder()
            .setEndpoints(s.endpoints())
            .setRequestTimeout(s.requestTimeout());
    if (s.accessKey() != null) {
      cb.setCredentialProvider(new StaticSessionCredentialsProvider(s.accessKey(), s.secretKey()));
    }
    ClientConfiguration config = cb.build();
    ProducerMetrics metrics =
        b.meterRegistry == null ? ProducerMetrics.none() : new ProducerMetrics(b.meterRegistry);
    JournalCheckbackResolver journalResolver =
        new JournalCheckbackResolver(b.dataSource, store, s, metrics);
    CheckbackDispatcher dispatcher = new CheckbackDispatcher(b.resolvers, journalResolver);
    this.producer =
        provider
            .newProducerBuilder()
            .setClientConfiguration(config)
            .setTopics(s.topics().toArray(new String[0]))
            .setTransactionChecker(dispatcher)
            .build();
    EnvelopeMessages messages = new EnvelopeMessages(provider);
    LocalTransactions tx =
        b.transactions != null ? b.transactions : new JdbcLocalTransactions(b.dataSource);
    this.template =
        new TxMessageProducer(
            s,
            producer,
            tx,
            b.dataSource,
            store,
            messages,
            b.serializer,
            b.sanitizer,
            b.interceptor,
            metrics);
    this.reconciler = new Reconciler(b.dataSource, store, s, producer, messages, metrics);
    DeliveryConfirmer c = null;
    try {
      if (s.confirmation() == DeliveryConfirmation.CONSUMER) {
        c = new DeliveryConfirmer(b.dataSource, store, s);
        c.start(provider, config);
      }
    } catch (Exception e) {
      producer.close();
      throw e;
    }
    this.confirmer = c;
    if (s.reconcilerEnabled() || b.meterRegistry != null) {
      scheduler =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "txmsg-reconciler-" + s.storeId());
                t.setDaemon(true);
                return t;
              });
    } else {
      scheduler = null;
    }
    if (s.reconcilerEnabled()) {
      long every = s.reconcileInterval().toMillis();
      scheduler.scheduleWithFixedDelay(this::reconcileQuietly, every, every, TimeUnit.MILLISECONDS);
    }
    if (b.meterRegistry != null) {
      JournalGauges gauges =
          new JournalGauges(
              new StoreTransactions(b.dataSource, store), b.meterRegistry, List.copyOf(s.topics()));
      long every = b.gaugeInterval.toMillis();
      scheduler.scheduleWithFixedDelay(gauges::refresh, 0, every, TimeUnit.MILLISECONDS);
    }
    log.info("txmsg started {}", s);
  }

  private void reconcileQuietly() {
    try {
      reconciler.runOnce();
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

  public TxmsgStore store() {
    return store;
  }

  /** Stops the reconciler, the confirmer and the producer (in-flight sends finish first). */
  @Override
  public void close() throws Exception {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
    Exception first = null;
    try {
      if (confirmer != null) {
        confirmer.close();
      }
    } catch (Exception e) {
      first = e;
    }
    try {
      producer.close();
    } catch (Exception e) {
      if (first == null) {
        first = e;
      } else {
        first.addSuppressed(e);
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Builds and starts {@link TxMessaging}. */
  public static final class Builder {
    private DataSource dataSource;
    private TxMessagingSettings settings;
    private LocalTransactions transactions;
    private final List<CheckbackResolver> resolvers = new ArrayList<>();
    private PayloadSerializer serializer = new JsonPayloadSerializer();
    private PayloadSanitizer sanitizer = PayloadSanitizer.none();
    private ProducerInterceptor interceptor = new ProducerInterceptor() {};
    private MeterRegistry meterRegistry;
    private Duration gaugeInterval = Duration.ofSeconds(15);

    private Builder() {}

    /** Required: the business database holding the txmsg tables. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** Required. */
    public Builder settings(TxMessagingSettings settings) {
      this.settings = settings;
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

    /**
     * Micrometer registry for the {@code txmsg.*} meters (DESIGN.md section 5); default none. The
     * journal gauges are refreshed every {@code gaugeInterval} by one indexed query.
     */
    public Builder meterRegistry(MeterRegistry registry, Duration gaugeInterval) {
      this.meterRegistry = registry;
      this.gaugeInterval = gaugeInterval;
      return this;
    }

    public Builder meterRegistry(MeterRegistry registry) {
      return meterRegistry(registry, Duration.ofSeconds(15));
    }

    /**
     * Validates, connects and starts.
     *
     * @throws IllegalArgumentException naming a bad setting
     * @throws IllegalStateException when the broker or the database cannot be reached, or a topic
     *     does not exist
     */
    public TxMessaging build() {
      if (dataSource == null) {
        throw new IllegalArgumentException("txmsg settings: dataSource is required");
      }
      if (settings == null) {
        throw new IllegalArgumentException("txmsg settings: settings are required");
      }
      settings.validate();
      try {
        return new TxMessaging(this);
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("txmsg could not start: " + e.getMessage(), e);
      }
    }
  }
}
