package io.txmsg.boot;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.transport.BrokerConnection;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds {@link TxProducerSettings} and {@link TxConsumerSettings} from {@link TxmsgProperties}.
 * The settings classes validate; this class only translates: an {@link InvalidSettingsException}
 * naming a setting ({@code storeId}, {@code connection.nameServer}, {@code groups[g].maxAttempts})
 * becomes an {@link InvalidTxmsgPropertyException} naming the property the user wrote.
 */
final class SettingsFromProperties {
  private static final String MESSAGE_PREFIX = "txmsg settings: ";
  private static final Pattern GROUP_SETTING = Pattern.compile("groups\\[(.*)]\\.(\\w+)");

  private SettingsFromProperties() {}

  static TxProducerSettings producer(TxmsgProperties properties) {
    TxmsgProperties.Producer p = properties.getProducer();
    return translated(
        "txmsg.producer",
        () -> {
          TxProducerSettings s =
              new TxProducerSettings()
                  .connection(connection(properties.getBroker()))
                  .topics(p.getTopics().toArray(String[]::new))
                  .publishTopics(p.getPublishTopics().toArray(String[]::new))
                  .autoCreateSchema(p.isAutoCreateSchema());
          if (p.getStoreId() != null) {
            s.storeId(p.getStoreId());
          }
          if (p.getTablePrefix() != null) {
            s.tablePrefix(p.getTablePrefix());
          }
          if (p.getDeliveryMode() != null) {
            s.deliveryMode(p.getDeliveryMode());
          }
          if (p.getConfirmation() != null) {
            s.confirmation(p.getConfirmation());
          }
          if (p.getRepublishAfter() != null) {
            s.republishAfter(p.getRepublishAfter());
          }
          if (p.getPublishAfter() != null) {
            s.publishAfter(p.getPublishAfter());
          }
          if (p.getReconcilerEnabled() != null) {
            s.reconcilerEnabled(p.getReconcilerEnabled());
          }
          if (p.getConsumeLogRetention() != null) {
            s.consumeLogRetention(p.getConsumeLogRetention());
          }
          s.validate();
          return s;
        });
  }

  static TxConsumerSettings consumer(TxmsgProperties properties) {
    TxmsgProperties.Consumer c = properties.getConsumer();
    return translated(
        "txmsg.consumer",
        () -> {
          TxConsumerSettings s =
              new TxConsumerSettings()
                  .connection(connection(properties.getBroker()))
                  .autoCreateSchema(c.isAutoCreateSchema());
          if (c.getTablePrefix() != null) {
            s.tablePrefix(c.getTablePrefix());
          }
          if (c.getThreads() != null) {
            s.consumptionThreads(c.getThreads());
          }
          if (c.getConsumeLogRetention() != null) {
            s.consumeLogRetention(c.getConsumeLogRetention());
          }
          TxmsgProperties.DlqDrain drain = c.getDlqDrain();
          s.dlqDrain(
              drain.getEnabled() != null ? drain.getEnabled() : s.dlqDrainEnabled(),
              drain.getRetryInterval() != null
                  ? drain.getRetryInterval()
                  : s.dlqDrainRetryInterval());
          TxmsgProperties.LeasedDelivery leased = c.getLeasedDelivery();
          if (leased.getLease() != null) {
            s.leasedDelivery(leased.getLease(), leased.getRetryInitial(), leased.getRetryMax());
          }
          for (Map.Entry<String, TxmsgProperties.Group> e : c.getGroups().entrySet()) {
            s.group(group(e.getKey(), e.getValue()));
          }
          s.validate();
          return s;
        });
  }

  private static ConsumerGroupConfig group(String name, TxmsgProperties.Group g) {
    ConsumerGroupConfig config = ConsumerGroupConfig.of(name);
    g.getTopics().forEach(config::subscribe);
    config.ignore(g.getIgnore().toArray(String[]::new));
    if (g.getThreads() != null) {
      config.consumptionThreads(g.getThreads());
    }
    if (g.getMaxAttempts() != null) {
      config.maxAttempts(g.getMaxAttempts());
    }
    return config;
  }

  /** The broker connection; both runtimes read the same {@code txmsg.broker.*} properties. */
  static BrokerConnection connection(TxmsgProperties.Broker b) {
    boolean grpc = b.getEndpoints() != null;
    boolean remoting = b.getNameServer() != null;
    if (grpc == remoting) {
      throw new InvalidTxmsgPropertyException(
          grpc ? "txmsg.broker" : "txmsg.broker.endpoints",
          grpc
              ? "sets both endpoints and name-server: choose one (gRPC proxy or remoting)"
              : "or txmsg.broker.name-server is required (a RocketMQ 5 proxy's gRPC endpoint, or"
                  + " the NameServer address for remoting)");
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

  /** Runs {@code build}, translating a settings name in its failure into the property name. */
  private static <T> T translated(String prefix, java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (InvalidTxmsgPropertyException e) {
      throw e;
    } catch (InvalidSettingsException e) {
      InvalidTxmsgPropertyException translated =
          new InvalidTxmsgPropertyException(property(prefix, e.setting()), problem(e));
      translated.initCause(e);
      throw translated;
    }
  }

  /** The property that sets {@code setting} (as {@link InvalidSettingsException} names it). */
  static String property(String prefix, String setting) {
    switch (setting) {
      case "connection":
        return "txmsg.broker";
      case "connection.credentials":
        return "txmsg.broker.secret-key";
      case "connection.nameServer":
        return "txmsg.broker.name-server";
      case "consumptionThreads":
        return prefix + ".threads";
      case "dlqDrainRetryInterval":
        return prefix + ".dlq-drain.retry-interval";
      default:
        break;
    }
    if (setting.startsWith("connection.")) {
      return "txmsg.broker." + kebab(setting.substring("connection.".length()));
    }
    Matcher m = GROUP_SETTING.matcher(setting);
    if (m.matches()) {
      String field = "consumptionThreads".equals(m.group(2)) ? "threads" : kebab(m.group(2));
      return prefix + ".groups." + m.group(1) + "." + field;
    }
    return prefix + "." + kebab(setting);
  }

  private static String problem(InvalidSettingsException e) {
    String expected = MESSAGE_PREFIX + e.setting() + " ";
    String message = e.getMessage();
    return message.startsWith(expected) ? message.substring(expected.length()) : message;
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }
}
