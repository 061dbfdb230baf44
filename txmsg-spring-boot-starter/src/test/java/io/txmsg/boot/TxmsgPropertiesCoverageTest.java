package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.txmsg.cdc.CdcRelaySettings;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.db.DatabaseIndependent;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.convert.DurationStyle;

/**
 * Every public setting of {@link TxProducerSettings}, {@link TxConsumerSettings} and {@link
 * ConsumerGroupConfig} is a {@code txmsg.*} property, listed with its default in the configuration
 * metadata that Boot's processor generated from {@link TxmsgProperties}; and those defaults are the
 * settings classes' own. The settings are walked by reflection (their public fluent setters), so a
 * setting added later without a property fails here, by name.
 */
@DatabaseIndependent
class TxmsgPropertiesCoverageTest {
  /** Setters whose property is not their kebab-case name. */
  private static final Map<String, String> PRODUCER_PROPERTY = Map.of("connection", "txmsg.broker");

  private static final Map<String, String> CONSUMER_PROPERTY =
      Map.of(
          "connection", "txmsg.broker",
          "consumptionThreads", "txmsg.consumer.threads",
          "group", "txmsg.consumer.groups");

  /** Group setters (name/arity) and the group property each maps to. */
  private static final Map<String, String> GROUP_PROPERTY =
      Map.of("subscribe/1", "topics", "subscribe/2", "tags", "consumptionThreads/1", "threads");

  /** Properties whose value the metadata states, and the settings getter holding the default. */
  private static final Map<String, String> GETTER =
      Map.of(
          "txmsg.producer.confirm-batching.size", "confirmBatchSize",
          "txmsg.producer.confirm-batching.flush-interval", "confirmFlushInterval",
          "txmsg.consumer.threads", "consumptionThreads",
          "txmsg.consumer.replay-worker.poll-interval", "replayPollInterval");

  /** Properties without a default of a settings class, and why. */
  private static final Map<String, String> NO_SETTINGS_DEFAULT =
      Map.ofEntries(
          Map.entry("txmsg.producer.enabled", "the starter's switch"),
          Map.entry("txmsg.consumer.enabled", "the starter's switch"),
          Map.entry("txmsg.producer.json-mapper", "the starter's choice of mapper"),
          Map.entry("txmsg.consumer.json-mapper", "the starter's choice of mapper"),
          Map.entry("txmsg.producer.topics", "required, no default"),
          Map.entry("txmsg.producer.publish-topics", "empty"),
          Map.entry("txmsg.producer.store-id", "spring.application.name, never 'default'"),
          Map.entry("txmsg.producer.confirmation", "depends on delivery-mode"),
          Map.entry("txmsg.consumer.groups", "none"),
          Map.entry("txmsg.consumer.leased-delivery.lease", "unset: off"),
          Map.entry("txmsg.consumer.leased-delivery.retry-initial", "used only with a lease"),
          Map.entry("txmsg.consumer.leased-delivery.retry-max", "used only with a lease"));

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void everyProducerSettingIsAProperty() throws Exception {
    assertThat(missing(TxProducerSettings.class, "txmsg.producer", PRODUCER_PROPERTY))
        .as("producer settings without a txmsg.* property")
        .isEmpty();
  }

  @Test
  void everyConsumerSettingIsAProperty() throws Exception {
    assertThat(missing(TxConsumerSettings.class, "txmsg.consumer", CONSUMER_PROPERTY))
        .as("consumer settings without a txmsg.* property")
        .isEmpty();
  }

  @Test
  void everyConsumerGroupSettingIsAGroupProperty() {
    List<String> missing = new ArrayList<>();
    for (Method m : setters(ConsumerGroupConfig.class)) {
      String key = m.getName() + "/" + m.getParameterCount();
      String property = GROUP_PROPERTY.getOrDefault(key, m.getName());
      if (BeanUtils.getPropertyDescriptor(TxmsgProperties.Group.class, property) == null
          || BeanUtils.getPropertyDescriptor(TxmsgProperties.Group.class, property).getWriteMethod()
              == null) {
        missing.add(key + " (txmsg.consumer.groups.<group>." + kebab(property) + ")");
      }
    }
    assertThat(missing).as("group settings without a property").isEmpty();
  }

  @Test
  void theMetadataListsEachDefaultAsTheSettingsHaveIt() throws Exception {
    TxProducerSettings producer = new TxProducerSettings();
    TxConsumerSettings consumer = new TxConsumerSettings();
    Map<String, String> wrong = new TreeMap<>();
    int compared = 0;
    for (Map.Entry<String, JsonNode> e : metadata().entrySet()) {
      String name = e.getKey();
      Object settings =
          name.startsWith("txmsg.producer.")
              ? producer
              : name.startsWith("txmsg.consumer.") ? consumer : null;
      if (settings == null || NO_SETTINGS_DEFAULT.containsKey(name)) {
        continue;
      }
      String relative = name.substring(name.indexOf('.', "txmsg.".length()) + 1);
      String getter = GETTER.getOrDefault(name, camel(relative));
      Method m = settings.getClass().getMethod(getter);
      Object expected = m.invoke(settings);
      JsonNode defaultValue = e.getValue().get("defaultValue");
      if (defaultValue == null) {
        wrong.put(name, "no default in the metadata (the settings have " + expected + ")");
        continue;
      }
      Object actual = parse(defaultValue, m.getReturnType());
      if (!expected.equals(actual)) {
        wrong.put(name, "metadata " + defaultValue + ", settings " + expected);
      }
      compared++;
    }
    assertThat(wrong).as("defaults that differ from the settings classes'").isEmpty();
    assertThat(compared).as("properties compared").isGreaterThanOrEqualTo(37);
  }

  /** The CDC relay's settings: each is a {@code txmsg.cdc.*} property. */
  private static final Map<String, List<String>> CDC_PROPERTIES =
      Map.of(
          "withQueue", List.of("max-batch-size", "max-queue-size", "max-queue-bytes"),
          "withBackoff", List.of("backoff-initial", "backoff-max"),
          "withSentBatching", List.of("sent-batch-size", "sent-linger"),
          "withPublication", List.of("publication-name", "create-publication"));

  /** txmsg.cdc.* properties that are the starter's own, or whose default is computed. */
  private static final Set<String> CDC_NO_SETTINGS_DEFAULT =
      Set.of(
          "txmsg.cdc.enabled",
          "txmsg.cdc.jdbc-url",
          "txmsg.cdc.username",
          "txmsg.cdc.password",
          "txmsg.cdc.metrics-interval",
          "txmsg.cdc.slot-name",
          "txmsg.cdc.publication-name");

  @Test
  void everyCdcRelaySettingIsAPropertyWithTheSettingsDefault() throws Exception {
    Map<String, JsonNode> metadata = metadata();
    List<String> missing = new ArrayList<>();
    for (Method m : setters(CdcRelaySettings.class)) {
      List<String> names =
          CDC_PROPERTIES.getOrDefault(
              m.getName(), List.of(kebab(m.getName().substring("with".length()))));
      for (String n : names) {
        if (!metadata.containsKey("txmsg.cdc." + n)) {
          missing.add(m.getName() + " (expected txmsg.cdc." + n + ")");
        }
      }
    }
    assertThat(missing).as("CDC relay settings without a txmsg.cdc.* property").isEmpty();

    CdcRelaySettings defaults = CdcRelaySettings.defaults();
    Map<String, String> wrong = new TreeMap<>();
    int compared = 0;
    for (Map.Entry<String, JsonNode> e : metadata.entrySet()) {
      String name = e.getKey();
      if (!name.startsWith("txmsg.cdc.") || CDC_NO_SETTINGS_DEFAULT.contains(name)) {
        continue;
      }
      Method getter =
          CdcRelaySettings.class.getMethod(camel(name.substring("txmsg.cdc.".length())));
      Object expected = getter.invoke(defaults);
      JsonNode defaultValue = e.getValue().get("defaultValue");
      Object actual = defaultValue == null ? null : parse(defaultValue, getter.getReturnType());
      if (!expected.equals(actual)) {
        wrong.put(name, "metadata " + defaultValue + ", settings " + expected);
      }
      compared++;
    }
    assertThat(wrong)
        .as("txmsg.cdc.* defaults that differ from CdcRelaySettings.defaults()")
        .isEmpty();
    assertThat(compared).as("txmsg.cdc.* properties compared").isGreaterThanOrEqualTo(14);
  }

  /** The setters of {@code type} that no property under {@code prefix} covers. */
  private static List<String> missing(Class<?> type, String prefix, Map<String, String> renamed)
      throws Exception {
    Set<String> properties = metadata().keySet();
    List<String> missing = new ArrayList<>();
    for (Method m : setters(type)) {
      String property = renamed.getOrDefault(m.getName(), prefix + "." + kebab(m.getName()));
      boolean covered =
          properties.stream().anyMatch(p -> p.equals(property) || p.startsWith(property + "."));
      if (!covered) {
        missing.add(m.getName() + " (expected " + property + ")");
      }
    }
    return missing;
  }

  /** Public instance methods with arguments that return the type itself: its fluent setters. */
  private static List<Method> setters(Class<?> type) {
    List<Method> out = new ArrayList<>();
    for (Method m : type.getMethods()) {
      if (m.getDeclaringClass() == type
          && !Modifier.isStatic(m.getModifiers())
          && m.getReturnType() == type
          && m.getParameterCount() > 0) {
        out.add(m);
      }
    }
    out.sort((a, b) -> a.getName().compareTo(b.getName()));
    assertThat(out).as("setters of " + type.getSimpleName()).isNotEmpty();
    return out;
  }

  /** The generated metadata: property name to its entry. */
  private static Map<String, JsonNode> metadata() throws Exception {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    try (InputStream in =
        TxmsgProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the configuration processor's output").isNotNull();
      for (JsonNode p : JSON.readTree(in).get("properties")) {
        out.put(p.get("name").asText(), p);
      }
    }
    assertThat(new TreeSet<>(out.keySet())).contains("txmsg.producer.topics");
    return out;
  }

  private static Object parse(JsonNode value, Class<?> type) {
    if (type == Duration.class) {
      return DurationStyle.detectAndParse(value.asText());
    }
    if (type == int.class) {
      return value.asInt();
    }
    if (type == long.class) {
      return value.asLong();
    }
    if (type == boolean.class) {
      return value.asBoolean();
    }
    if (type.isEnum()) {
      String constant = value.asText().toUpperCase(Locale.ROOT).replace('-', '_');
      for (Object c : type.getEnumConstants()) {
        if (((Enum<?>) c).name().equals(constant)) {
          return c;
        }
      }
    }
    return value.asText();
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /** "retry-backoff.initial" to "retryBackoffInitial". */
  private static String camel(String kebab) {
    StringBuilder b = new StringBuilder();
    boolean upper = false;
    for (char c : kebab.toCharArray()) {
      if (c == '-' || c == '.') {
        upper = true;
      } else {
        b.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return b.toString();
  }
}
