package io.txmsg.testkit.spring;

import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

/**
 * The topics and consumer groups a txmsg application's {@code txmsg.*} properties name, read from a
 * Spring environment without Spring Boot's binder (the test kit runs under plain Spring too): a
 * list property is a comma-separated value or indexed entries ({@code topics[0]}, as YAML lists
 * become). See {@link EmbeddedTxmsgBroker} for what becomes what.
 */
final class TxmsgTopology {
  private static final Pattern GROUP_TOPICS =
      Pattern.compile("txmsg\\.consumer\\.groups\\.([^.\\[\\]]+)\\.topics(\\[\\d+])?");
  private static final Duration RETRY_INITIAL = Duration.ofMillis(500);
  private static final Duration RETRY_MAX = Duration.ofSeconds(1);

  private final Map<String, TopicType> topics;
  private final Map<String, Set<String>> groups;
  private final int retryMaxTimes;

  private TxmsgTopology(
      Map<String, TopicType> topics, Map<String, Set<String>> groups, int retryMaxTimes) {
    this.topics = topics;
    this.groups = groups;
    this.retryMaxTimes = retryMaxTimes;
  }

  static TxmsgTopology read(
      ConfigurableEnvironment env,
      String[] fifoTopics,
      String[] normalTopics,
      String[] transactionTopics,
      int retryMaxTimes) {
    Map<String, TopicType> topics = new LinkedHashMap<>();
    boolean outbox =
        "OUTBOX".equals(normalise(env.getProperty("txmsg.producer.delivery-mode", "HALF_MESSAGE")));
    for (String t : list(env, "txmsg.producer.topics")) {
      topics.put(t, outbox ? TopicType.NORMAL : TopicType.TRANSACTION);
    }
    for (String t : list(env, "txmsg.producer.publish-topics")) {
      topics.putIfAbsent(t, TopicType.NORMAL);
    }
    Map<String, Set<String>> groups = new LinkedHashMap<>();
    for (String group : groupNames(env)) {
      Set<String> groupTopics =
          new LinkedHashSet<>(list(env, "txmsg.consumer.groups." + group + ".topics"));
      groups.put(group, groupTopics);
      for (String t : groupTopics) {
        topics.putIfAbsent(t, TopicType.TRANSACTION);
      }
    }
    for (String t : transactionTopics) {
      topics.put(t, TopicType.TRANSACTION);
    }
    for (String t : normalTopics) {
      topics.put(t, TopicType.NORMAL);
    }
    for (String t : fifoTopics) {
      topics.put(t, TopicType.FIFO);
    }
    if (!list(env, "txmsg.producer.topics").isEmpty()) {
      String storeId = env.getProperty("txmsg.producer.store-id");
      if (storeId == null || storeId.isBlank()) {
        storeId = env.getProperty("spring.application.name");
      }
      if (storeId != null && !storeId.isBlank()) {
        groups.putIfAbsent("txmsg-confirm-" + storeId.trim(), Set.of());
      }
    }
    return new TxmsgTopology(topics, groups, retryMaxTimes);
  }

  /** Creates (or updates) every topic, then every group. */
  void createOn(EmbeddedRocketMQ mq) {
    topics.forEach(mq::createTopic);
    groups.forEach(
        (group, groupTopics) ->
            mq.createConsumerGroup(
                group,
                retryMaxTimes,
                RETRY_INITIAL,
                RETRY_MAX,
                groupTopics.stream().anyMatch(t -> topics.get(t) == TopicType.FIFO)));
  }

  Map<String, TopicType> topics() {
    return topics;
  }

  Map<String, Set<String>> groups() {
    return groups;
  }

  /** A list property: "a, b" or indexed entries name[0], name[1], ... */
  private static List<String> list(ConfigurableEnvironment env, String name) {
    List<String> out = new ArrayList<>();
    String value = env.getProperty(name);
    if (value != null) {
      for (String part : value.split(",")) {
        if (!part.isBlank()) {
          out.add(part.trim());
        }
      }
      return out;
    }
    for (int i = 0; ; i++) {
      String entry = env.getProperty(name + "[" + i + "]");
      if (entry == null) {
        return out;
      }
      out.add(entry.trim());
    }
  }

  private static Set<String> groupNames(ConfigurableEnvironment env) {
    Set<String> names = new LinkedHashSet<>();
    for (PropertySource<?> source : env.getPropertySources()) {
      if (source instanceof EnumerablePropertySource<?> e) {
        for (String key : e.getPropertyNames()) {
          Matcher m = GROUP_TOPICS.matcher(key);
          if (m.matches()) {
            names.add(m.group(1));
          }
        }
      }
    }
    return names;
  }

  /** Relaxed enum spelling: outbox, Outbox, OUTBOX. */
  private static String normalise(String value) {
    return value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
  }
}
