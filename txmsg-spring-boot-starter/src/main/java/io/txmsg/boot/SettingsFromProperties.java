package io.txmsg.boot;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.LogSafe;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.transport.BrokerConnection;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Completes {@link TxProducerSettings} and {@link TxConsumerSettings} from {@link TxmsgProperties},
 * in this order of precedence (lowest first):
 *
 * <ol>
 *   <li>the settings classes' defaults;
 *   <li>{@code txmsg.*} properties: a property sets a setting that still holds its default, so on
 *       the starter's own settings bean every property applies, and on a settings bean of the
 *       application's the values it set (other than the defaults) win;
 *   <li>{@link TxProducerSettingsCustomizer} / {@link TxConsumerSettingsCustomizer} beans, in their
 *       order: they see the result and may change anything.
 * </ol>
 *
 * Then the settings validate. A failure names the property that sets the failing setting ({@code
 * storeId} → {@code txmsg.producer.store-id}, {@code groups[g].maxAttempts} → {@code
 * txmsg.consumer.groups.g.max-attempts}) as an {@link InvalidTxmsgPropertyException}, unless the
 * application's own settings bean set that value: then the settings' {@link
 * InvalidSettingsException} stands, naming the setting as the bean's code spells it.
 */
final class SettingsFromProperties {
  static final String APPLICATION_NAME = "spring.application.name";
  static final String STORE_ID = "txmsg.producer.store-id";
  private static final String MESSAGE_PREFIX = "txmsg settings: ";
  private static final Pattern GROUP_SETTING = Pattern.compile("groups\\[(.*)]\\.(\\w+)");
  private static final Pattern STORE_ID_RULE = Pattern.compile("[A-Za-z0-9_\\-]{1,32}");

  private SettingsFromProperties() {}

  /**
   * Completes producer settings (the starter's own, or the application's bean).
   *
   * @param applicationName {@code spring.application.name}, or null
   * @throws InvalidTxmsgPropertyException naming the property to fix
   */
  static void producer(
      TxmsgProperties properties,
      String applicationName,
      TxProducerSettings s,
      List<TxProducerSettingsCustomizer> customizers) {
    Fill f = new Fill("txmsg.producer");
    TxProducerSettings d = new TxProducerSettings();
    TxmsgProducerProperties p = properties.getProducer();
    f.translated(
        () -> {
          if (!s.connection().equals(d.connection())) {
            f.fromBean.add("txmsg.broker");
          } else if (hasAddress(properties.getBroker())) {
            s.connection(connection(properties.getBroker()));
          }
          f.set(
              "topics",
              s.topics(),
              d.topics(),
              distinct(p.getTopics()),
              t -> s.topics(t.toArray(String[]::new)));
          f.set(
              "publish-topics",
              s.publishTopics(),
              d.publishTopics(),
              distinct(p.getPublishTopics()),
              t -> s.publishTopics(t.toArray(String[]::new)));
          f.set(
              "table-prefix", s.tablePrefix(), d.tablePrefix(), p.getTablePrefix(), s::tablePrefix);
          f.set(
              "delivery-mode",
              s.deliveryMode(),
              d.deliveryMode(),
              p.getDeliveryMode(),
              s::deliveryMode);
          f.set(
              "brokers-durable",
              s.brokersDurable(),
              d.brokersDurable(),
              p.isBrokersDurable(),
              s::brokersDurable);
          // Unset reads as the mode's default (CONSUMER, BROKER_ACK or SEND_OK): compare with that
          // one, computed from the same mode, connection and durability declaration.
          DeliveryConfirmation modeDefault =
              new TxProducerSettings()
                  .deliveryMode(s.deliveryMode())
                  .connection(s.connection())
                  .brokersDurable(s.brokersDurable())
                  .confirmation();
          if (s.confirmation() != modeDefault) {
            f.fromBean.add("txmsg.producer.confirmation");
          } else if (p.getConfirmation() != null) {
            s.confirmation(p.getConfirmation());
          }
          f.set(
              "publish-after",
              s.publishAfter(),
              d.publishAfter(),
              p.getPublishAfter(),
              s::publishAfter);
          f.set(
              "cdc-fallback-after",
              s.cdcFallbackAfter(),
              d.cdcFallbackAfter(),
              p.getCdcFallbackAfter(),
              s::cdcFallbackAfter);
          f.set(
              "max-payload-bytes",
              s.maxPayloadBytes(),
              d.maxPayloadBytes(),
              p.getMaxPayloadBytes(),
              s::maxPayloadBytes);
          f.set(
              "local-transaction-timeout",
              s.localTransactionTimeout(),
              d.localTransactionTimeout(),
              p.getLocalTransactionTimeout(),
              s::localTransactionTimeout);
          f.set(
              "fence-after-checks",
              s.fenceAfterChecks(),
              d.fenceAfterChecks(),
              p.getFenceAfterChecks(),
              s::fenceAfterChecks);
          f.set("fence-after", s.fenceAfter(), d.fenceAfter(), p.getFenceAfter(), s::fenceAfter);
          f.set(
              "fence-lock-wait",
              s.fenceLockWait(),
              d.fenceLockWait(),
              p.getFenceLockWait(),
              s::fenceLockWait);
          f.set(
              "settle-lock-wait",
              s.settleLockWait(),
              d.settleLockWait(),
              p.getSettleLockWait(),
              s::settleLockWait);
          f.set(
              "republish-after",
              s.republishAfter(),
              d.republishAfter(),
              p.getRepublishAfter(),
              s::republishAfter);
          f.set(
              "reconcile-interval",
              s.reconcileInterval(),
              d.reconcileInterval(),
              p.getReconcileInterval(),
              s::reconcileInterval);
          f.set(
              "heartbeat-interval",
              s.heartbeatInterval(),
              d.heartbeatInterval(),
              p.getHeartbeatInterval(),
              s::heartbeatInterval);
          f.set(
              "instance-stale-after",
              s.instanceStaleAfter(),
              d.instanceStaleAfter(),
              p.getInstanceStaleAfter(),
              s::instanceStaleAfter);
          f.set(
              "reconcile-batch-size",
              s.reconcileBatchSize(),
              d.reconcileBatchSize(),
              p.getReconcileBatchSize(),
              s::reconcileBatchSize);
          f.set(
              "reconcile-concurrency",
              s.reconcileConcurrency(),
              d.reconcileConcurrency(),
              p.getReconcileConcurrency(),
              s::reconcileConcurrency);
          f.set(
              "sent-batch-size",
              s.sentBatchSize(),
              d.sentBatchSize(),
              p.getSentBatchSize(),
              s::sentBatchSize);
          f.set(
              "lease-duration",
              s.leaseDuration(),
              d.leaseDuration(),
              p.getLeaseDuration(),
              s::leaseDuration);
          TxmsgBackoffProperties backoff = p.getRetryBackoff();
          f.set(
              "retry-backoff",
              List.of(s.retryBackoffInitial(), s.retryBackoffMax()),
              List.of(d.retryBackoffInitial(), d.retryBackoffMax()),
              List.of(backoff.getInitial(), backoff.getMax()),
              b -> s.retryBackoff(b.get(0), b.get(1)));
          f.set(
              "consume-log-retention",
              s.consumeLogRetention(),
              d.consumeLogRetention(),
              p.getConsumeLogRetention(),
              s::consumeLogRetention);
          TxmsgProducerProperties.ConfirmBatching batching = p.getConfirmBatching();
          f.set(
              "confirm-batching",
              List.<Object>of(s.confirmBatchSize(), s.confirmFlushInterval()),
              List.<Object>of(d.confirmBatchSize(), d.confirmFlushInterval()),
              List.<Object>of(batching.getSize(), batching.getFlushInterval()),
              b -> s.confirmBatching((Integer) b.get(0), (Duration) b.get(1)));
          f.set(
              "auto-create-schema",
              s.autoCreateSchema(),
              d.autoCreateSchema(),
              p.isAutoCreateSchema(),
              s::autoCreateSchema);
          f.set(
              "reconciler-enabled",
              s.reconcilerEnabled(),
              d.reconcilerEnabled(),
              p.isReconcilerEnabled(),
              s::reconcilerEnabled);
        });
    // The settings' "default" store id is never used by the starter: two services on one cluster
    // would share it (and its confirm group) without either noticing.
    String noStoreId = null;
    if (!s.storeId().equals(d.storeId())) {
      f.fromBean.add(STORE_ID);
    } else if (p.getStoreId() != null) {
      f.translated(() -> s.storeId(p.getStoreId()));
    } else if (applicationName == null || applicationName.isBlank()) {
      noStoreId =
          "is required: it names this journal in every message and the confirm group"
              + " txmsg-confirm-<store-id>, and must differ between services on one cluster; set"
              + " it, or "
              + APPLICATION_NAME
              + " (its default)";
    } else if (!STORE_ID_RULE.matcher(applicationName).matches()) {
      noStoreId =
          "is not set, and "
              + APPLICATION_NAME
              + " "
              + LogSafe.quote(applicationName)
              + ", its default, is not a valid store id (1..32 characters of [A-Za-z0-9_-]): set "
              + STORE_ID;
    } else {
      s.storeId(applicationName);
    }
    customizers.forEach(c -> c.customize(s));
    if (noStoreId != null && s.storeId().equals(d.storeId())) {
      throw new InvalidTxmsgPropertyException(STORE_ID, noStoreId);
    }
    requireConnection(s.connection());
    f.translated(s::validate);
  }

  /**
   * Completes consumer settings (the starter's own, or the application's bean).
   *
   * @throws InvalidTxmsgPropertyException naming the property to fix
   */
  static void consumer(
      TxmsgProperties properties,
      TxConsumerSettings s,
      List<TxConsumerSettingsCustomizer> customizers) {
    Fill f = new Fill("txmsg.consumer");
    TxConsumerSettings d = new TxConsumerSettings();
    TxmsgConsumerProperties c = properties.getConsumer();
    f.translated(
        () -> {
          if (!s.connection().equals(d.connection())) {
            f.fromBean.add("txmsg.broker");
          } else if (hasAddress(properties.getBroker())) {
            s.connection(connection(properties.getBroker()));
          }
          f.set(
              "table-prefix", s.tablePrefix(), d.tablePrefix(), c.getTablePrefix(), s::tablePrefix);
          f.set(
              "auto-create-schema",
              s.autoCreateSchema(),
              d.autoCreateSchema(),
              c.isAutoCreateSchema(),
              s::autoCreateSchema);
          f.set(
              "consume-log-retention",
              s.consumeLogRetention(),
              d.consumeLogRetention(),
              c.getConsumeLogRetention(),
              s::consumeLogRetention);
          f.set(
              "too-old-margin",
              s.tooOldMargin(),
              d.tooOldMargin(),
              c.getTooOldMargin(),
              s::tooOldMargin);
          f.set(
              "threads",
              s.consumptionThreads(),
              d.consumptionThreads(),
              c.getThreads(),
              s::consumptionThreads);
          f.set(
              "command-poll-interval",
              s.commandPollInterval(),
              d.commandPollInterval(),
              c.getCommandPollInterval(),
              s::commandPollInterval);
          f.set(
              "command-batch-size",
              s.commandBatchSize(),
              d.commandBatchSize(),
              c.getCommandBatchSize(),
              s::commandBatchSize);
          f.set(
              "command-lease",
              s.commandLease(),
              d.commandLease(),
              c.getCommandLease(),
              s::commandLease);
          f.set(
              "command-max-attempts",
              s.commandMaxAttempts(),
              d.commandMaxAttempts(),
              c.getCommandMaxAttempts(),
              s::commandMaxAttempts);
          TxmsgBackoffProperties backoff = c.getCommandBackoff();
          f.set(
              "command-backoff",
              List.of(s.commandBackoffInitial(), s.commandBackoffMax()),
              List.of(d.commandBackoffInitial(), d.commandBackoffMax()),
              List.of(backoff.getInitial(), backoff.getMax()),
              b -> s.commandBackoff(b.get(0), b.get(1)));
          TxmsgConsumerProperties.DlqDrain drain = c.getDlqDrain();
          f.set(
              "dlq-drain",
              List.<Object>of(s.dlqDrainEnabled(), s.dlqDrainRetryInterval()),
              List.<Object>of(d.dlqDrainEnabled(), d.dlqDrainRetryInterval()),
              List.<Object>of(drain.isEnabled(), drain.getRetryInterval()),
              b -> s.dlqDrain((Boolean) b.get(0), (Duration) b.get(1)));
          f.set(
              "retry-policy-wait",
              s.retryPolicyWait(),
              d.retryPolicyWait(),
              c.getRetryPolicyWait(),
              s::retryPolicyWait);
          TxmsgConsumerProperties.ReplayWorker replay = c.getReplayWorker();
          f.set(
              "replay-worker",
              List.<Object>of(s.replayWorkerEnabled(), s.replayPollInterval()),
              List.<Object>of(d.replayWorkerEnabled(), d.replayPollInterval()),
              List.<Object>of(replay.isEnabled(), replay.getPollInterval()),
              b -> s.replayWorker((Boolean) b.get(0), (Duration) b.get(1)));
          TxmsgConsumerProperties.LeasedDelivery leased = c.getLeasedDelivery();
          if (s.leasedDelivery() != null) {
            f.fromBean.add("txmsg.consumer.leased-delivery");
          } else if (leased.getLease() != null) {
            s.leasedDelivery(leased.getLease(), leased.getRetryInitial(), leased.getRetryMax());
          }
          for (Map.Entry<String, TxmsgProperties.Group> e : c.getGroups().entrySet()) {
            // A group the application's bean declares is the bean's.
            if (s.groups().containsKey(e.getKey())) {
              f.fromBean.add("txmsg.consumer.groups." + e.getKey());
            } else {
              s.group(group(e.getKey(), e.getValue()));
            }
          }
        });
    customizers.forEach(customizer -> customizer.customize(s));
    requireConnection(s.connection());
    f.translated(s::validate);
  }

  private static ConsumerGroupConfig group(String name, TxmsgProperties.Group g) {
    ConsumerGroupConfig config = ConsumerGroupConfig.of(name);
    for (String topic : g.getTopics()) {
      config.subscribe(topic, g.getTags().getOrDefault(topic, "*"));
    }
    for (String tagged : g.getTags().keySet()) {
      if (!g.getTopics().contains(tagged)) {
        throw new InvalidSettingsException(
            "groups[" + name + "].tags",
            "name topic " + tagged + ", which is not one of the group's topics " + g.getTopics());
      }
    }
    config.ignore(g.getIgnore().toArray(String[]::new));
    config.consumptionThreads(g.getThreads());
    config.maxAttempts(g.getMaxAttempts());
    return config;
  }

  private static boolean hasAddress(TxmsgBrokerProperties b) {
    return notBlank(b.getEndpoints()) || notBlank(b.getNameServer());
  }

  // Blank counts as unset: a test (or an environment variable) blanks the address it replaces.
  private static boolean notBlank(String s) {
    return s != null && !s.isBlank();
  }

  /** No address from the properties, the application's bean or a customizer. */
  private static void requireConnection(BrokerConnection c) {
    if (c.address() == null) {
      throw new InvalidTxmsgPropertyException(
          "txmsg.broker.endpoints",
          "or txmsg.broker.name-server is required: the NameServer address(es) for the remoting"
              + " transport (txmsg-rocketmq-remoting), or a RocketMQ 5 proxy's gRPC endpoint(s) for"
              + " the gRPC transport (txmsg-rocketmq); "
              + TransportCheck.onClassPath());
    }
  }

  /** The broker connection of the {@code txmsg.broker.*} properties, which set an address. */
  static BrokerConnection connection(TxmsgBrokerProperties b) {
    boolean grpc = notBlank(b.getEndpoints());
    boolean remoting = notBlank(b.getNameServer());
    if (grpc && remoting) {
      throw new InvalidTxmsgPropertyException(
          "txmsg.broker",
          "sets both endpoints and name-server: choose one (gRPC proxy or remoting)");
    }
    BrokerConnection c =
        grpc
            ? BrokerConnection.endpoints(b.getEndpoints())
            : BrokerConnection.nameServer(b.getNameServer());
    if (b.getAccessKey() != null || b.getSecretKey() != null) {
      c = c.withCredentials(b.getAccessKey(), b.getSecretKey());
    }
    if (b.getTls() != null) {
      c = c.withTls(b.getTls());
    }
    if (b.getRequestTimeout() != null) {
      c = c.withRequestTimeout(b.getRequestTimeout());
    }
    // Here, not only in the runtimes' build(): the consumer settings check less of the connection.
    c.validate();
    return c;
  }

  /** Duplicates dropped (the settings take a set), order kept. */
  private static Set<String> distinct(List<String> topics) {
    return new LinkedHashSet<>(topics);
  }

  /** Which properties were applied, and the translation of a settings failure into them. */
  private static final class Fill {
    private final String prefix;
    private final Set<String> fromBean = new HashSet<>();

    Fill(String prefix) {
      this.prefix = prefix;
    }

    /**
     * Applies {@code value} when the settings still hold the default and the property differs from
     * it (equal to the default, it would change nothing).
     */
    <T> void set(String property, T current, T defaultValue, T value, Consumer<T> setter) {
      if (!Objects.equals(current, defaultValue)) {
        fromBean.add(prefix + "." + property);
      } else if (value != null && !Objects.equals(value, defaultValue)) {
        setter.accept(value);
      }
    }

    /**
     * Runs {@code step}; a settings failure is rethrown naming the property that sets the setting,
     * unless the application's own settings bean set it (then the settings' exception stands,
     * naming the setting as the bean's code spells it).
     */
    void translated(Runnable step) {
      try {
        step.run();
      } catch (InvalidTxmsgPropertyException e) {
        throw e;
      } catch (InvalidSettingsException e) {
        String property = property(prefix, e.setting());
        if (setByBean(property)) {
          throw e;
        }
        InvalidTxmsgPropertyException translated =
            new InvalidTxmsgPropertyException(property, problem(e));
        translated.initCause(e);
        throw translated;
      }
    }

    private boolean setByBean(String property) {
      for (String f : fromBean) {
        if (property.equals(f) || property.startsWith(f + ".") || f.startsWith(property + ".")) {
          return true;
        }
      }
      return false;
    }
  }

  /** The property that sets {@code setting} (as {@link InvalidSettingsException} names it). */
  static String property(String prefix, String setting) {
    switch (setting) {
      case "connection":
        return "txmsg.broker";
      case "connection.credentials":
        return "txmsg.broker.secret-key";
      case "consumptionThreads":
        return prefix + ".threads";
      case "dlqDrainRetryInterval":
        return prefix + ".dlq-drain.retry-interval";
      case "retryBackoffInitial":
        return prefix + ".retry-backoff.initial";
      case "commandBackoffInitial":
        return prefix + ".command-backoff.initial";
      case "commandBackoffMax":
        return prefix + ".command-backoff.max";
      case "confirmBatchSize":
        return prefix + ".confirm-batching.size";
      case "confirmFlushInterval":
        return prefix + ".confirm-batching.flush-interval";
      case "replayPollInterval":
        return prefix + ".replay-worker.poll-interval";
      default:
        break;
    }
    if (setting.startsWith("connection.")) {
      return "txmsg.broker." + kebab(setting.substring("connection.".length()));
    }
    Matcher m = GROUP_SETTING.matcher(setting);
    if (m.matches()) {
      String field =
          switch (m.group(2)) {
            case "consumptionThreads" -> "threads";
            case "subscriptions" -> "topics";
            case "name" -> "";
            default -> kebab(m.group(2));
          };
      return prefix + ".groups." + m.group(1) + (field.isEmpty() ? "" : "." + field);
    }
    return prefix + "." + kebab(setting);
  }

  private static String problem(InvalidSettingsException e) {
    String expected = MESSAGE_PREFIX + e.setting() + " ";
    String message = e.getMessage();
    return message.startsWith(expected) ? message.substring(expected.length()) : message;
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }
}
