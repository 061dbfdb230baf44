package io.txmsg.boot;

import io.txmsg.api.DeliveryMode;
import io.txmsg.cdc.CdcRelay;
import io.txmsg.cdc.CdcRelayListener;
import io.txmsg.cdc.CdcRelaySettings;
import io.txmsg.cdc.CdcSource;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.transport.Transport;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * The CDC relay ({@link TxmsgCdcRelayRuntime}) when this instance should run one: {@code
 * txmsg.cdc.enabled=true}, or, unset, {@code txmsg.producer.delivery-mode=cdc}. It relays the
 * producer's store (its store id, table prefix, broker and topics) and reads the log of {@code
 * txmsg.cdc.jdbc-url} as {@code txmsg.cdc.username} (defaults: the {@code spring.datasource.*}
 * ones). With Micrometer, its meters ({@code txmsg.cdc.*}) go to the context's registry.
 *
 * <p>With {@code delivery-mode=cdc} but without {@code io.txmsg:txmsg-cdc} on the class path the
 * start fails saying so: the CDC rows would otherwise wait for the reconciler's fallback ({@code
 * cdc-fallback-after}) every time, unnoticed. A deployment that relays elsewhere sets {@code
 * txmsg.cdc.enabled=false}.
 */
@AutoConfiguration(after = TxmsgAutoConfiguration.class)
@Conditional(TxmsgCdcAutoConfiguration.RelayWanted.class)
public class TxmsgCdcAutoConfiguration {

  /** The relay, with txmsg-cdc on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.txmsg.cdc.CdcRelay")
  static class Relay {
    private static final boolean MICROMETER =
        ClassUtils.isPresent(
            "io.micrometer.core.instrument.MeterRegistry", Relay.class.getClassLoader());

    @Bean
    TxmsgCdcRelayRuntime txmsgCdcRelayRuntime(
        ObjectProvider<TxProducerSettings> producerSettings,
        ObjectProvider<TxmsgProducerRuntime> producer,
        TxmsgProperties properties,
        Environment environment,
        BeanFactory beanFactory) {
      TxProducerSettings settings = producerSettings.getIfAvailable();
      if (settings == null || producer.getIfAvailable() == null) {
        throw new InvalidTxmsgPropertyException(
            "txmsg.cdc.enabled",
            "the CDC relay sends the producer's store, but no producer is configured here: set"
                + " txmsg.producer.topics (the relay uses its store id, broker and topics), or"
                + " txmsg.cdc.enabled=false");
      }
      if (settings.deliveryMode() != DeliveryMode.CDC) {
        throw new InvalidTxmsgPropertyException(
            "txmsg.cdc.enabled",
            "the producer's delivery mode is "
                + settings.deliveryMode()
                + ", which writes no CDC rows: set txmsg.producer.delivery-mode=cdc, or"
                + " txmsg.cdc.enabled=false");
      }
      TxmsgCdcProperties cdc = properties.getCdc();
      DataSource dataSource = beanFactory.getBean(DataSource.class);
      CdcSource source = source(cdc, environment, dataSource);
      CdcRelaySettings relaySettings = relaySettings(cdc);
      Transport transport = beanFactory.getBeanProvider(Transport.class).getIfAvailable();
      CdcRelayMeters meters =
          MICROMETER ? CdcRelayMeters.of(beanFactory, settings.storeId()) : null;
      CdcRelayListener listener = meters == null ? new CdcRelayListener() {} : meters.listener();
      TxmsgBrokerProperties broker = properties.getBroker();
      return new TxmsgCdcRelayRuntime(
          () -> {
            CdcRelay.Builder b =
                CdcRelay.builder()
                    .dataSource(dataSource)
                    .storeId(settings.storeId())
                    .tablePrefix(settings.tablePrefix())
                    .source(source)
                    .topics(settings.topics())
                    .settings(relaySettings)
                    .listener(listener);
            if (transport != null) {
              b.transport(transport);
            } else {
              b.connection(settings.connection());
            }
            CdcRelay relay = b.build();
            try {
              relay.start();
            } catch (RuntimeException e) {
              relay.close();
              throw e;
            }
            if (meters != null) {
              meters.bind(relay, cdc.getMetricsInterval());
            }
            return relay;
          },
          meters,
          broker.isFailFast(),
          broker.getConnectRetryInterval());
    }

    /** txmsg.cdc.*, else spring.datasource.*, else what the DataSource's connection reports. */
    static CdcSource source(TxmsgCdcProperties cdc, Environment env, DataSource dataSource) {
      String url = first(cdc.getJdbcUrl(), env.getProperty("spring.datasource.url"));
      String user = first(cdc.getUsername(), env.getProperty("spring.datasource.username"));
      String password = first(cdc.getPassword(), env.getProperty("spring.datasource.password"));
      if (url == null || user == null) {
        try (Connection c = dataSource.getConnection()) {
          DatabaseMetaData md = c.getMetaData();
          url = first(url, md.getURL());
          user = first(user, md.getUserName());
        } catch (SQLException e) {
          throw new InvalidTxmsgPropertyException(
              "txmsg.cdc.jdbc-url",
              "is not set and the DataSource could not say its URL (" + e.getMessage() + ")");
        }
      }
      try {
        return CdcSource.fromJdbcUrl(url, user, password);
      } catch (io.txmsg.api.InvalidSettingsException e) {
        throw new InvalidTxmsgPropertyException("txmsg.cdc.jdbc-url", e.getMessage());
      }
    }

    static CdcRelaySettings relaySettings(TxmsgCdcProperties cdc) {
      return CdcRelaySettings.defaults()
          .withLease(cdc.getLease())
          .withPollInterval(cdc.getPollInterval())
          .withHeartbeatInterval(cdc.getHeartbeatInterval())
          .withOffsetFlushInterval(cdc.getOffsetFlushInterval())
          .withQueue(cdc.getMaxBatchSize(), cdc.getMaxQueueSize(), cdc.getMaxQueueBytes())
          .withBackoff(cdc.getBackoffInitial(), cdc.getBackoffMax())
          .withSentBatching(cdc.getSentBatchSize(), cdc.getSentLinger())
          .withSlotName(cdc.getSlotName())
          .withPublication(cdc.getPublicationName(), cdc.isCreatePublication())
          .withServerId(cdc.getServerId())
          .withTerminateStaleReader(cdc.isTerminateStaleReader());
    }

    private static String first(String a, String b) {
      return a != null && !a.isBlank() ? a : b;
    }
  }

  /** delivery-mode=cdc without txmsg-cdc: the start fails, saying what to add. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("io.txmsg.cdc.CdcRelay")
  static class RelayMissing {
    @Bean
    Object txmsgCdcRelayRuntime() {
      throw new InvalidTxmsgPropertyException(
          "txmsg.producer.delivery-mode",
          "is cdc, but io.txmsg:txmsg-cdc is not on the class path: add it (the relay reads the"
              + " journal's inserts from the database's log), or set txmsg.cdc.enabled=false when"
              + " another deployment relays this store (without any relay the reconciler sends"
              + " each CDC row only after txmsg.producer.cdc-fallback-after)");
    }
  }

  /**
   * txmsg.cdc.enabled when set; unset, whether txmsg.producer.delivery-mode is cdc (an application
   * that defines its own settings bean with the CDC mode sets txmsg.cdc.enabled=true).
   */
  static final class RelayWanted extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      Binder binder = Binder.get(context.getEnvironment());
      Boolean enabled = binder.bind("txmsg.cdc.enabled", Boolean.class).orElse(null);
      if (enabled != null) {
        return enabled
            ? ConditionOutcome.match("txmsg.cdc.enabled=true")
            : ConditionOutcome.noMatch("txmsg.cdc.enabled=false");
      }
      DeliveryMode mode =
          binder.bind("txmsg.producer.delivery-mode", DeliveryMode.class).orElse(null);
      return mode == DeliveryMode.CDC
          ? ConditionOutcome.match("txmsg.producer.delivery-mode=cdc")
          : ConditionOutcome.noMatch("txmsg.producer.delivery-mode=" + mode);
    }
  }
}
