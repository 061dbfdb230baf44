package io.txmsg.testkit.cluster;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.auth.authentication.enums.UserType;
import org.apache.rocketmq.auth.authentication.model.User;
import org.apache.rocketmq.auth.authorization.enums.Decision;
import org.apache.rocketmq.auth.authorization.model.Acl;
import org.apache.rocketmq.auth.authorization.model.Policy;
import org.apache.rocketmq.auth.authorization.model.PolicyEntry;
import org.apache.rocketmq.auth.authorization.model.Resource;
import org.apache.rocketmq.auth.config.AuthConfig;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.broker.client.ConsumerGroupInfo;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.action.Action;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.proxy.ProxyStartup;
import org.apache.rocketmq.proxy.config.ConfigurationManager;
import org.apache.rocketmq.proxy.config.ProxyConfig;
import org.apache.rocketmq.proxy.grpc.GrpcServer;
import org.apache.rocketmq.proxy.grpc.GrpcServerBuilder;
import org.apache.rocketmq.proxy.grpc.v2.GrpcMessagingApplication;
import org.apache.rocketmq.proxy.metrics.ProxyMetricsManager;
import org.apache.rocketmq.proxy.processor.DefaultMessagingProcessor;
import org.apache.rocketmq.proxy.service.cert.TlsCertificateManager;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.subscription.ExponentialRetryPolicy;
import org.apache.rocketmq.remoting.protocol.subscription.GroupRetryPolicy;
import org.apache.rocketmq.remoting.protocol.subscription.GroupRetryPolicyType;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.store.MessageStore;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * Runs a NameServer, a Broker and a gRPC Proxy in LOCAL mode in this JVM, for txmsg-testkit.
 *
 * <p>Started by {@code io.txmsg.testkit.rocketmq.EmbeddedRocketMQ} in a forked JVM with one
 * argument: a properties file (ports, directory, broker and proxy settings). Protocol on
 * stdout/stdin, one line each:
 *
 * <ul>
 *   <li>after start: {@code TXMSG-CLUSTER-READY grpc=<port> namesrv=<host:port>};
 *   <li>commands: {@code topic <name> <NORMAL|FIFO|TRANSACTION|DELAY> [queues]}, {@code group
 *       <name> <retryMaxTimes> <initialBackoffMs> <maxBackoffMs> [fifo]}, {@code ping}, and the
 *       others {@code handle} lists; answers {@code OK ...} or {@code ERR <message>}.
 * </ul>
 *
 * <p>With settings {@code auth.user} and {@code auth.password}, ACL 2.0 authentication and
 * authorization are on for the broker and the proxy, with that user as the one super user; the
 * commands {@code user} and {@code grant} add normal users and their rights.
 *
 * <p>Everything else printed to {@code System.out} goes to stderr; broker and proxy logs go to
 * {@code ${user.home}/logs}. When stdin reaches end of file the JVM halts at once, so a dead parent
 * never leaves a running cluster behind.
 */
public final class ClusterMain {
  /** The line prefix the parent waits for. */
  public static final String READY = "TXMSG-CLUSTER-READY";

  private static final String PROBE_TOPIC = "TXMSG_CLUSTER_PROBE";
  private static final long ROUTE_TIMEOUT_MS = 30_000;

  private final Properties settings;
  private final PrintStream protocol;
  private NamesrvController namesrv;
  private BrokerController broker;
  private String namesrvAddr;
  private int grpcPort;

  private ClusterMain(Properties settings, PrintStream protocol) {
    this.settings = settings;
    this.protocol = protocol;
  }

  public static void main(String[] args) throws Exception {
    // The real stdout carries the protocol only; anything the cluster prints goes to stderr.
    PrintStream protocol =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);

    BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    Thread stdin = new Thread(() -> readCommands(commands), "txmsg-cluster-stdin");
    stdin.setDaemon(true);
    stdin.start();

    if (args.length != 1) {
      System.err.println("usage: ClusterMain <settings.properties>");
      Runtime.getRuntime().halt(2);
    }
    Properties settings = new Properties();
    try (Reader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8)) {
      settings.load(in);
    }
    ClusterMain cluster = new ClusterMain(settings, protocol);
    try {
      long started = System.nanoTime();
      cluster.start();
      System.err.printf(
          "txmsg-cluster: started in %d ms%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    } catch (Throwable e) {
      System.err.println("txmsg-cluster: start failed");
      e.printStackTrace(System.err);
      System.err.flush();
      Runtime.getRuntime().halt(1);
    }
    protocol.println(READY + " grpc=" + cluster.grpcPort + " namesrv=" + cluster.namesrvAddr);
    while (true) {
      String line = commands.take();
      String answer;
      try {
        answer = cluster.handle(line.trim());
      } catch (Throwable e) {
        e.printStackTrace(System.err);
        answer = "ERR " + String.valueOf(e).replace('\n', ' ').replace('\r', ' ');
      }
      protocol.println(answer);
    }
  }

  private static void readCommands(BlockingQueue<String> commands) {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (!line.isBlank()) {
          commands.add(line);
        }
      }
    } catch (Throwable e) {
      // fall through: no parent to talk to any more
    }
    System.err.println("txmsg-cluster: stdin closed, halting");
    System.err.flush();
    Runtime.getRuntime().halt(0);
  }

  private int intSetting(String key) {
    String value = settings.getProperty(key);
    if (value == null) {
      throw new IllegalArgumentException("missing setting " + key);
    }
    return Integer.parseInt(value.trim());
  }

  private long longSetting(String key, long defaultValue) {
    String value = settings.getProperty(key);
    return value == null ? defaultValue : Long.parseLong(value.trim());
  }

  private Properties prefixed(String prefix) {
    Properties result = new Properties();
    for (String key : settings.stringPropertyNames()) {
      if (key.startsWith(prefix)) {
        result.setProperty(key.substring(prefix.length()), settings.getProperty(key));
      }
    }
    return result;
  }

  private void start() throws Exception {
    Path dir = Paths.get(settings.getProperty("dir")).toAbsolutePath();
    int namesrvPort = intSetting("namesrvPort");
    int brokerPort = intSetting("brokerPort");
    int haPort = intSetting("haPort");
    grpcPort = intSetting("grpcPort");
    namesrvAddr = "127.0.0.1:" + namesrvPort;
    Path store = dir.resolve("store");
    Files.createDirectories(store);
    System.setProperty(MixAll.ROCKETMQ_HOME_PROPERTY, dir.toString());

    // NameServer
    NamesrvConfig namesrvConfig = new NamesrvConfig();
    namesrvConfig.setRocketmqHome(dir.toString());
    namesrvConfig.setKvConfigPath(dir.resolve("namesrv").resolve("kvConfig.json").toString());
    namesrvConfig.setConfigStorePath(
        dir.resolve("namesrv").resolve("namesrv.properties").toString());
    NettyServerConfig namesrvServer = new NettyServerConfig();
    namesrvServer.setListenPort(namesrvPort);
    namesrv = new NamesrvController(namesrvConfig, namesrvServer, new NettyClientConfig());
    if (!namesrv.initialize()) {
      throw new IllegalStateException("NameServer failed to initialize");
    }
    namesrv.start();
    phase("namesrv started");

    // Proxy configuration: read only from the JSON file named by a system property.
    Path proxyJson = dir.resolve("rmq-proxy.json");
    String json =
        "{\"rocketMQClusterName\":\"DefaultCluster\",\"proxyMode\":\"LOCAL\","
            + "\"grpcServerPort\":"
            + grpcPort
            + ",\"namesrvAddr\":\""
            + namesrvAddr
            + "\"}";
    String user = settings.getProperty("auth.user");
    String password = settings.getProperty("auth.password");
    boolean auth = user != null && password != null;
    if (auth) {
      // ACL 2.0: the proxy authenticates gRPC clients against the users the broker stores (in
      // LOCAL mode through the broker in this JVM); super users pass authorization.
      json =
          json.substring(0, json.length() - 1)
              + ",\"authenticationEnabled\":true,\"authenticationProvider\":"
              + jsonString(AUTHENTICATION_PROVIDER)
              + ",\"authenticationMetadataProvider\":"
              + jsonString("org.apache.rocketmq.proxy.auth.ProxyAuthenticationMetadataProvider")
              + ",\"authorizationEnabled\":true,\"authorizationProvider\":"
              + jsonString(AUTHORIZATION_PROVIDER)
              + ",\"authorizationMetadataProvider\":"
              + jsonString("org.apache.rocketmq.proxy.auth.ProxyAuthorizationMetadataProvider")
              + ",\"innerClientAuthenticationCredentials\":"
              + jsonString(credentials(user, password))
              + "}";
    }
    Files.writeString(proxyJson, json, StandardCharsets.UTF_8);
    System.setProperty("com.rocketmq.proxy.configPath", proxyJson.toString());
    ConfigurationManager.initEnv();
    ConfigurationManager.intConfig();
    ProxyConfig proxyConfig = ConfigurationManager.getProxyConfig();
    proxyConfig.setGrpcClientConsumerMinLongPollingTimeoutMillis(
        longSetting("longPollingMinMillis", 1000));
    proxyConfig.setGrpcClientConsumerMaxLongPollingTimeoutMillis(
        longSetting("longPollingMaxMillis", 3000));
    MixAll.properties2Object(prefixed("proxy."), proxyConfig);

    // Broker
    BrokerConfig brokerConfig = new BrokerConfig();
    brokerConfig.setRocketmqHome(dir.toString());
    brokerConfig.setBrokerClusterName("DefaultCluster");
    brokerConfig.setBrokerName("broker-a");
    brokerConfig.setBrokerIP1("127.0.0.1");
    brokerConfig.setNamesrvAddr(namesrvAddr);
    brokerConfig.setListenPort(brokerPort);
    // As in production: a send to a missing topic fails instead of creating it (over remoting the
    // broker would otherwise create any topic a producer names). Overridable with
    // broker.autoCreateTopicEnable.
    brokerConfig.setAutoCreateTopicEnable(false);
    // A send waits at most 200 ms in the broker's queue by default before it is refused as "broker
    // busy" (TIMEOUT_CLEAN_QUEUE): on two cores shared by parallel test classes and their forked
    // clients that is routine. Tests are about semantics, not flow control; overridable with
    // broker.waitTimeMillsInSendQueue.
    brokerConfig.setWaitTimeMillsInSendQueue(2000);
    brokerConfig.setTransactionCheckInterval(longSetting("transactionCheckInterval", 1000));
    brokerConfig.setTransactionTimeOut(longSetting("transactionTimeOut", 2000));
    brokerConfig.setTransactionCheckMax((int) longSetting("transactionCheckMax", 15));
    brokerConfig.setTransactionOpBatchInterval(
        (int) longSetting("transactionOpBatchInterval", 100));

    MessageStoreConfig storeConfig = new MessageStoreConfig();
    storeConfig.setStorePathRootDir(store.toString());
    storeConfig.setStorePathCommitLog(store.resolve("commitlog").toString());
    storeConfig.setHaListenPort(haPort);
    storeConfig.setMappedFileSizeCommitLog(64 * 1024 * 1024);
    storeConfig.setMappedFileSizeConsumeQueue(600_000);
    storeConfig.setMaxHashSlotNum(10_000);
    storeConfig.setMaxIndexNum(40_000);
    storeConfig.setMappedFileSizeTimerLog(8 * 1024 * 1024);
    storeConfig.setTimerMaxDelaySec(3600);
    storeConfig.setDiskMaxUsedSpaceRatio(95);
    // Remoting redeliveries wait for the delay level 3 + reconsumeTimes (10 s, 30 s, 1 min, … by
    // default); one second each keeps the remoting consumer tests as quick as the gRPC ones, whose
    // groups get a 0.5–1 s backoff. Overridable with broker.messageDelayLevel.
    storeConfig.setMessageDelayLevel(
        settings.getProperty(
            "messageDelayLevel", "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s"));

    Properties brokerExtra = prefixed("broker.");
    MixAll.properties2Object(brokerExtra, brokerConfig);
    MixAll.properties2Object(brokerExtra, storeConfig);

    AuthConfig authConfig = new AuthConfig();
    authConfig.setConfigName(brokerConfig.getBrokerName());
    authConfig.setClusterName(brokerConfig.getBrokerClusterName());
    authConfig.setAuthConfigPath(dir.resolve("auth").toString());
    if (auth) {
      // ACL 2.0 on the broker's remoting port: the initial user is a super user, created (in the
      // broker's local RocksDB metadata) at the first start.
      authConfig.setAuthenticationEnabled(true);
      authConfig.setAuthenticationProvider(AUTHENTICATION_PROVIDER);
      authConfig.setAuthenticationMetadataProvider(
          "org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider");
      authConfig.setAuthorizationEnabled(true);
      authConfig.setAuthorizationProvider(AUTHORIZATION_PROVIDER);
      authConfig.setAuthorizationMetadataProvider(
          "org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider");
      authConfig.setInitAuthenticationUser(
          "{\"username\":" + jsonString(user) + ",\"password\":" + jsonString(password) + "}");
      authConfig.setInnerClientAuthenticationCredentials(credentials(user, password));
    }
    NettyServerConfig brokerServer = new NettyServerConfig();
    brokerServer.setListenPort(brokerPort);
    broker =
        new BrokerController(
            brokerConfig, brokerServer, new NettyClientConfig(), storeConfig, authConfig);
    if (!broker.initialize()) {
      throw new IllegalStateException("Broker failed to initialize");
    }
    phase("broker initialized");

    // Proxy in LOCAL mode: it embeds the broker above.
    ProxyMetricsManager.initLocalMode(broker.getBrokerMetricsManager(), proxyConfig);
    DefaultMessagingProcessor processor = DefaultMessagingProcessor.createForLocalMode(broker);
    ProxyStartup.initThreadPoolMonitor();
    ThreadPoolExecutor executor = ProxyStartup.createServerExecutor();
    TlsCertificateManager tls = new TlsCertificateManager();
    tls.start();
    GrpcMessagingApplication application = GrpcMessagingApplication.create(processor);
    GrpcServer grpcServer =
        GrpcServerBuilder.newBuilder(executor, grpcPort, tls)
            .addService(application)
            .configInterceptor()
            .shutdownTime(1, TimeUnit.SECONDS)
            .build();

    broker.start();
    processor.start();
    application.start();
    grpcServer.start();
    phase("broker and proxy started");

    // The broker's first registration may be lost if the NameServer was not ready yet.
    createTopic(PROBE_TOPIC, "NORMAL", 1);
    // The NameServer answers now. If the broker's first (full) registration was lost, the probe's
    // incremental registration made the NameServer know only the probe topic: register everything
    // again until every stored topic (after a restart) resolves.
    awaitAllRoutes();
    phase("routes resolved");
  }

  private void awaitAllRoutes() throws InterruptedException {
    long deadline = System.currentTimeMillis() + ROUTE_TIMEOUT_MS;
    while (true) {
      broker.registerBrokerAll(true, false, true);
      String missing = null;
      for (String topic : broker.getTopicConfigManager().getTopicConfigTable().keySet()) {
        if (namesrv.getRouteInfoManager().pickupTopicRouteData(topic) == null) {
          missing = topic;
          break;
        }
      }
      if (missing == null) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("no route for topic " + missing + " from the NameServer");
      }
      Thread.sleep(200);
    }
  }

  private static final String AUTHENTICATION_PROVIDER =
      "org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider";
  private static final String AUTHORIZATION_PROVIDER =
      "org.apache.rocketmq.auth.authorization.provider.DefaultAuthorizationProvider";

  private static String credentials(String accessKey, String secretKey) {
    return "{\"accessKey\":"
        + jsonString(accessKey)
        + ",\"secretKey\":"
        + jsonString(secretKey)
        + "}";
  }

  private static String jsonString(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  private static final long JVM_START = System.nanoTime();

  private static void phase(String name) {
    System.err.printf(
        "txmsg-cluster: %s at %d ms%n",
        name, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - JVM_START));
  }

  private String handle(String line) throws Exception {
    String[] parts = line.split("\\s+");
    switch (parts[0].toLowerCase(Locale.ROOT)) {
      case "ping":
        return "OK pong";
      case "topic":
        {
          if (parts.length < 3) {
            return "ERR usage: topic <name> <NORMAL|FIFO|TRANSACTION|DELAY> [queues]";
          }
          int queues = parts.length > 3 ? Integer.parseInt(parts[3]) : 4;
          createTopic(parts[1], parts[2].toUpperCase(Locale.ROOT), queues);
          return "OK topic " + parts[1];
        }
      case "perm":
        {
          if (parts.length < 3) {
            return "ERR usage: perm <topic> <perm: 2 write-only, 4 read-only, 6 read-write>";
          }
          TopicConfig t = broker.getTopicConfigManager().selectTopicConfig(parts[1]);
          if (t == null) {
            return "ERR no topic " + parts[1];
          }
          // A fresh config without attributes: the stored ones lack the "+" an update expects, and
          // an update without attributes keeps them.
          TopicConfig changed =
              new TopicConfig(
                  t.getTopicName(),
                  t.getReadQueueNums(),
                  t.getWriteQueueNums(),
                  Integer.parseInt(parts[2]));
          broker.getTopicConfigManager().updateTopicConfig(changed);
          broker.registerIncrementBrokerData(
              broker.getTopicConfigManager().selectTopicConfig(parts[1]),
              broker.getTopicConfigManager().getDataVersion());
          return "OK perm " + parts[1];
        }
      case "group":
        {
          if (parts.length < 5) {
            return "ERR usage: group <name> <retryMaxTimes> <initialBackoffMs> <maxBackoffMs>"
                + " [fifo]";
          }
          boolean fifo = parts.length > 5 && "fifo".equalsIgnoreCase(parts[5]);
          createGroup(
              parts[1],
              Integer.parseInt(parts[2]),
              Long.parseLong(parts[3]),
              Long.parseLong(parts[4]),
              fifo);
          return "OK group " + parts[1];
        }
      case "subscribed":
        {
          if (parts.length < 2) {
            return "ERR usage: subscribed <group> [topic]";
          }
          return subscribed(parts[1], parts.length > 2 ? parts[2] : null);
        }
      case "queues":
        {
          if (parts.length < 3) {
            return "ERR usage: queues <topic> <group>";
          }
          return queues(parts[1], parts[2]);
        }
      case "startat":
        {
          if (parts.length < 3) {
            return "ERR usage: startat <group> <topic>";
          }
          return startAtFirstMessage(parts[1], parts[2]);
        }
      case "drained":
        {
          if (parts.length < 3) {
            return "ERR usage: drained <topic> <group>";
          }
          return drained(parts[1], parts[2]);
        }
      case "user":
        {
          if (parts.length < 3) {
            return "ERR usage: user <name> <password>";
          }
          return createUser(parts[1], parts[2]);
        }
      case "grant":
        {
          if (parts.length < 4) {
            return "ERR usage: grant <user> <Topic:name|Group:name|...> <ACTION[,ACTION...]>";
          }
          return grant(parts[1], parts[2], parts[3]);
        }
      case "givenup":
        {
          if (parts.length < 2) {
            return "ERR usage: givenup <topic>";
          }
          return givenUp(parts[1]);
        }
      case "setting":
        {
          if (parts.length < 2) {
            return "ERR usage: setting <broker or message-store property>";
          }
          return setting(parts[1]);
        }
      case "halt":
        protocol.println("OK halt");
        Runtime.getRuntime().halt(0);
        return "OK";
      default:
        return "ERR unknown command: " + parts[0];
    }
  }

  /**
   * Whether the group has an online consumer (a client channel registered by its heartbeat through
   * the proxy, which in LOCAL mode registers with this broker's consumer manager) and, with a
   * topic, a subscription to it. "OK yes <channels>" or "OK no": not being subscribed yet is an
   * answer, not an error.
   */
  private String subscribed(String group, String topic) {
    ConsumerGroupInfo info = broker.getConsumerManager().getConsumerGroupInfo(group);
    if (info == null || info.getChannelInfoTable().isEmpty()) {
      return "OK no";
    }
    if (topic != null && info.findSubscriptionData(topic) == null) {
      return "OK no";
    }
    return "OK yes " + info.getChannelInfoTable().size();
  }

  /**
   * For each queue of the topic: its message offsets (min to max, exclusive) and the group's
   * committed consume offset, "-" when the group has none. "OK 0:0-1@1 1:0-0@- ..." says where a
   * message a test waits for stands: not stored (max unchanged), stored and not consumed (offset
   * below max), or consumed by some client of the group (offset at max).
   */
  private String queues(String topic, String group) throws Exception {
    TopicConfig config = broker.getTopicConfigManager().selectTopicConfig(topic);
    if (config == null) {
      return "ERR no topic " + topic;
    }
    StringBuilder out = new StringBuilder("OK");
    for (int q = 0; q < config.getReadQueueNums(); q++) {
      long min = broker.getMessageStore().getMinOffsetInQueue(topic, q);
      long max = broker.getMessageStore().getMaxOffsetInQueue(topic, q);
      long consumed = broker.getConsumerOffsetManager().queryOffset(group, topic, q);
      out.append(' ')
          .append(q)
          .append(':')
          .append(min)
          .append('-')
          .append(max)
          .append('@')
          .append(consumed < 0 ? "-" : Long.toString(consumed));
    }
    return out.toString();
  }

  /**
   * Commits the group's consume offset at each queue's first message where the group has none yet,
   * so that a group that has never consumed the topic starts at its beginning whatever the timing
   * of its first rebalance (see EmbeddedRocketMQ#startGroupAtFirstMessage), and persists them so
   * that they survive a kill of the cluster.
   */
  private String startAtFirstMessage(String group, String topic) throws Exception {
    TopicConfig config = broker.getTopicConfigManager().selectTopicConfig(topic);
    if (config == null) {
      return "ERR no topic " + topic;
    }
    int set = 0;
    for (int q = 0; q < config.getReadQueueNums(); q++) {
      if (broker.getConsumerOffsetManager().queryOffset(group, topic, q) < 0) {
        long min = broker.getMessageStore().getMinOffsetInQueue(topic, q);
        broker.getConsumerOffsetManager().commitOffset("testkit", group, topic, q, min);
        set++;
      }
    }
    if (set > 0) {
      // Written to the store now: the broker persists offsets every flushConsumerOffsetInterval
      // (5 s), and a test that stops the cluster (a kill) sooner would restart it without them.
      broker.getConsumerOffsetManager().persist();
    }
    return "OK " + set;
  }

  /**
   * Whether the group has consumed everything of the topic the broker holds for it: "OK yes" or "OK
   * no <what is left>". Checked for the topic itself, the group's retry topic ({@code
   * %RETRY%<group>}, where remoting redeliveries land) and the pop retry topics of the pair (where
   * the broker's revive puts a popped message whose invisible time ran out, both naming versions):
   * on every queue the group's committed offset must be at the queue's max offset (a queue the
   * group never read counts only when it holds no message), and no message may be popped and not
   * yet acked ({@link org.apache.rocketmq.broker.processor.PopInflightMessageCounter}: raised by a
   * pop, lowered by the ack or by the revive). A pop commits the group's offset when it hands the
   * message out, so for pop consumers (gRPC) the offset alone says "handed out", not "done": the
   * in-flight count says the rest. That count lives in the broker's memory: a restart forgets the
   * messages popped before it (they come back through the revive after their invisible time).
   */
  private String drained(String topic, String group) throws Exception {
    StringBuilder left = new StringBuilder();
    java.util.LinkedHashSet<String> topics = new java.util.LinkedHashSet<>();
    topics.add(topic);
    topics.add(MixAll.getRetryTopic(group));
    topics.add(org.apache.rocketmq.common.KeyBuilder.buildPopRetryTopicV1(topic, group));
    topics.add(org.apache.rocketmq.common.KeyBuilder.buildPopRetryTopicV2(topic, group));
    for (String t : topics) {
      TopicConfig config = broker.getTopicConfigManager().selectTopicConfig(t);
      if (config == null) {
        continue; // never created: nothing in it
      }
      for (int q = 0; q < config.getReadQueueNums(); q++) {
        long min = broker.getMessageStore().getMinOffsetInQueue(t, q);
        long max = broker.getMessageStore().getMaxOffsetInQueue(t, q);
        long consumed = broker.getConsumerOffsetManager().queryOffset(group, t, q);
        long inFlight =
            broker.getPopInflightMessageCounter().getGroupPopInFlightMessageNum(t, group, q);
        boolean read = consumed < 0 ? max <= min : consumed >= max;
        if (!read || inFlight > 0) {
          left.append(' ')
              .append(t)
              .append('#')
              .append(q)
              .append(":offset=")
              .append(consumed)
              .append("/max=")
              .append(max)
              .append(",inflight=")
              .append(inFlight);
        }
      }
    }
    return left.length() == 0 ? "OK yes" : "OK no" + left;
  }

  /**
   * How many half messages of {@code topic} the broker has given up on: "OK <count>", the messages
   * of its give-up topic ({@code TRANS_CHECK_MAX_TIME_TOPIC}, where it moves a half message after
   * {@code transactionCheckMax} unanswered check-backs) whose real topic is {@code topic}. Read
   * from the store, so no consumer group's offsets move. Each message is looked up by its
   * commit-log offset: meant for the few hundred messages a test run gives up on.
   */
  private String givenUp(String topic) throws Exception {
    String giveUpTopic =
        org.apache.rocketmq.common.topic.TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC;
    TopicConfig config = broker.getTopicConfigManager().selectTopicConfig(giveUpTopic);
    if (config == null) {
      return "OK 0"; // the broker has never given up on anything
    }
    MessageStore store = broker.getMessageStore();
    long count = 0;
    for (int q = 0; q < config.getReadQueueNums(); q++) {
      long max = store.getMaxOffsetInQueue(giveUpTopic, q);
      for (long o = store.getMinOffsetInQueue(giveUpTopic, q); o < max; o++) {
        MessageExt m =
            store.lookMessageByOffset(store.getCommitLogOffsetInQueue(giveUpTopic, q, o));
        if (m != null && topic.equals(m.getProperty(MessageConst.PROPERTY_REAL_TOPIC))) {
          count++;
        }
      }
    }
    return "OK " + count;
  }

  /**
   * Creates a normal (not super) ACL 2.0 user, which may do nothing until {@link #grant} allows it:
   * "OK user <name>", or ERR when authorization is off.
   */
  private String createUser(String name, String password) throws Exception {
    if (broker.getAuthenticationMetadataManager() == null
        || settings.getProperty("auth.user") == null) {
      return "ERR authentication is off: start the cluster with a super user first";
    }
    broker
        .getAuthenticationMetadataManager()
        .createUser(User.of(name, password, UserType.NORMAL))
        .get(COMMAND_WAIT_SECONDS, TimeUnit.SECONDS);
    return "OK user " + name;
  }

  /**
   * Allows a user some actions on one resource ({@code Topic:<name>}, {@code Group:<name>}, a
   * {@code *} suffix for a prefix, as RocketMQ's {@code mqadmin createAcl} takes them), added to
   * the policies it already has: "OK grant ...".
   */
  private String grant(String user, String resource, String actions) throws Exception {
    if (broker.getAuthorizationMetadataManager() == null
        || settings.getProperty("auth.user") == null) {
      return "ERR authorization is off: start the cluster with a super user first";
    }
    java.util.List<Action> allowed = new java.util.ArrayList<>();
    for (String a : actions.split(",")) {
      Action action = Action.getByName(a);
      if (action == null || action == Action.UNKNOWN) {
        return "ERR unknown action " + a;
      }
      allowed.add(action);
    }
    Resource r = Resource.of(resource);
    if (r == null) {
      return "ERR unknown resource " + resource;
    }
    User subject = User.of(user);
    var acls = broker.getAuthorizationMetadataManager();
    Acl existing = acls.getAcl(subject).get(COMMAND_WAIT_SECONDS, TimeUnit.SECONDS);
    // An update replaces the actions of an entry for the same resource: keep the ones it had.
    if (existing != null && existing.getPolicies() != null) {
      for (Policy p : existing.getPolicies()) {
        for (PolicyEntry e : p.getEntries()) {
          if (e.getResource().equals(r) && e.getDecision() == Decision.ALLOW) {
            for (Action a : e.getActions()) {
              if (!allowed.contains(a)) {
                allowed.add(a);
              }
            }
          }
        }
      }
    }
    Policy policy = Policy.of(java.util.List.of(r), allowed, null, Decision.ALLOW);
    if (existing == null) {
      acls.createAcl(Acl.of(subject, policy)).get(COMMAND_WAIT_SECONDS, TimeUnit.SECONDS);
    } else {
      acls.updateAcl(Acl.of(subject, policy)).get(COMMAND_WAIT_SECONDS, TimeUnit.SECONDS);
    }
    return "OK grant " + user + " " + resource + " " + actions;
  }

  private static final long COMMAND_WAIT_SECONDS = 10;

  /** The running broker's value of a broker or message-store property: "OK <value>". */
  private String setting(String key) {
    Properties p = MixAll.object2Properties(broker.getBrokerConfig());
    String value = p.getProperty(key);
    if (value == null) {
      value = MixAll.object2Properties(broker.getMessageStoreConfig()).getProperty(key);
    }
    return value == null ? "ERR no broker property " + key : "OK " + value;
  }

  private void createTopic(String name, String type, int queues) throws InterruptedException {
    switch (type) {
      case "NORMAL":
      case "FIFO":
      case "TRANSACTION":
      case "DELAY":
        break;
      default:
        throw new IllegalArgumentException("unknown topic type " + type);
    }
    TopicConfig topic = new TopicConfig(name, queues, queues);
    Map<String, String> attributes = new HashMap<>();
    attributes.put("+message.type", type);
    topic.setAttributes(attributes);
    broker.getTopicConfigManager().updateTopicConfig(topic);
    broker.registerIncrementBrokerData(
        broker.getTopicConfigManager().selectTopicConfig(name),
        broker.getTopicConfigManager().getDataVersion());
    awaitRoute(name);
  }

  private void awaitRoute(String topic) throws InterruptedException {
    long deadline = System.currentTimeMillis() + ROUTE_TIMEOUT_MS;
    long nextRegister = System.currentTimeMillis() + 1000;
    while (true) {
      TopicRouteData route = namesrv.getRouteInfoManager().pickupTopicRouteData(topic);
      if (route != null && !route.getQueueDatas().isEmpty()) {
        return;
      }
      long now = System.currentTimeMillis();
      if (now > deadline) {
        throw new IllegalStateException("no route for topic " + topic + " from the NameServer");
      }
      if (now >= nextRegister) {
        broker.registerBrokerAll(true, false, true);
        nextRegister = now + 1000;
      }
      Thread.sleep(20);
    }
  }

  private void createGroup(
      String name, int retryMaxTimes, long initialBackoffMs, long maxBackoffMs, boolean fifo) {
    SubscriptionGroupConfig group = new SubscriptionGroupConfig();
    group.setGroupName(name);
    group.setRetryMaxTimes(retryMaxTimes);
    ExponentialRetryPolicy exponential = new ExponentialRetryPolicy();
    exponential.setInitial(initialBackoffMs);
    exponential.setMax(maxBackoffMs);
    exponential.setMultiplier(2);
    GroupRetryPolicy policy = new GroupRetryPolicy();
    policy.setType(GroupRetryPolicyType.EXPONENTIAL);
    policy.setExponentialRetryPolicy(exponential);
    group.setGroupRetryPolicy(policy);
    group.setConsumeMessageOrderly(fifo);
    broker.getSubscriptionGroupManager().updateSubscriptionGroupConfig(group);
  }
}
