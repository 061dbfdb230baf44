package io.txmsg.boot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The {@code txmsg.*} properties of a Spring Boot application: one property per public setting of
 * {@code TxProducerSettings}, {@code TxConsumerSettings} and {@code ConsumerGroupConfig}, with the
 * same defaults (TxmsgPropertiesCoverageTest holds the two together), plus the starter's own
 * ({@code txmsg.producer.enabled}, {@code txmsg.consumer.enabled}, {@code json-mapper}, {@code
 * txmsg.broker.fail-fast}, health, Flyway, Liquibase). A property that is not one of these fails
 * the start ({@code ignoreUnknownFields = false}): a typo or a removed property is never silently
 * ignored.
 *
 * <p>Each concern binds through a class of its own: {@link TxmsgBrokerProperties}, {@link
 * TxmsgProducerProperties}, {@link TxmsgConsumerProperties}, {@link TxmsgHealthProperties}, {@link
 * TxmsgFlywayProperties}, {@link TxmsgLiquibaseProperties} and {@link TxmsgCdcProperties}. {@link
 * JsonMapperChoice} and {@link Group} stay nested here: their names are part of the types of {@code
 * txmsg.*.json-mapper} and {@code txmsg.consumer.groups} in the generated configuration metadata.
 */
@ConfigurationProperties(prefix = "txmsg", ignoreUnknownFields = false)
public class TxmsgProperties {
  @NestedConfigurationProperty
  private final TxmsgBrokerProperties broker = new TxmsgBrokerProperties();

  @NestedConfigurationProperty
  private final TxmsgProducerProperties producer = new TxmsgProducerProperties();

  @NestedConfigurationProperty
  private final TxmsgConsumerProperties consumer = new TxmsgConsumerProperties();

  @NestedConfigurationProperty
  private final TxmsgHealthProperties health = new TxmsgHealthProperties();

  @NestedConfigurationProperty
  private final TxmsgFlywayProperties flyway = new TxmsgFlywayProperties();

  @NestedConfigurationProperty
  private final TxmsgLiquibaseProperties liquibase = new TxmsgLiquibaseProperties();

  @NestedConfigurationProperty private final TxmsgCdcProperties cdc = new TxmsgCdcProperties();

  public TxmsgBrokerProperties getBroker() {
    return broker;
  }

  public TxmsgProducerProperties getProducer() {
    return producer;
  }

  public TxmsgConsumerProperties getConsumer() {
    return consumer;
  }

  public TxmsgHealthProperties getHealth() {
    return health;
  }

  public TxmsgFlywayProperties getFlyway() {
    return flyway;
  }

  public TxmsgLiquibaseProperties getLiquibase() {
    return liquibase;
  }

  /** {@code txmsg.cdc.*}: the CDC relay (with txmsg-cdc on the class path). */
  public TxmsgCdcProperties getCdc() {
    return cdc;
  }

  /** Which JSON mapper turns payload objects into bytes or back. */
  public enum JsonMapperChoice {
    /** txmsg's own Jackson 2 mapper ({@code JsonPayloadSerializer}). */
    TXMSG,
    /** The application's Jackson 3 {@code JsonMapper} bean, when Spring Boot provides one. */
    APPLICATION
  }

  /** One consumer group: binds {@code txmsg.consumer.groups.<name>.*}. */
  public static class Group {
    /** Topics the group subscribes (tag filter *, unless tags names one). */
    private List<String> topics = new ArrayList<>();

    /** Tag expression per topic, e.g. pay: "paid || refunded" (default *). */
    private Map<String, String> tags = new LinkedHashMap<>();

    /** Event types acknowledged without a handler (never parked). */
    private List<String> ignore = new ArrayList<>();

    /** Consumption threads of this group; 0: txmsg.consumer.threads. */
    private int threads = 0;

    /** Deliveries of an event without a local handler before it is parked (NO_HANDLER). */
    private int maxAttempts = 16;

    public List<String> getTopics() {
      return topics;
    }

    public void setTopics(List<String> topics) {
      this.topics = topics;
    }

    public Map<String, String> getTags() {
      return tags;
    }

    public void setTags(Map<String, String> tags) {
      this.tags = tags;
    }

    public List<String> getIgnore() {
      return ignore;
    }

    public void setIgnore(List<String> ignore) {
      this.ignore = ignore;
    }

    public int getThreads() {
      return threads;
    }

    public void setThreads(int threads) {
      this.threads = threads;
    }

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }
  }
}
