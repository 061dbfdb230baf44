package io.txmsg.testkit.rocketmq;

import io.txmsg.testkit.TempDirectories;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real RocketMQ 5 cluster (NameServer, Broker and gRPC Proxy in LOCAL mode) for tests, running in
 * a forked JVM.
 *
 * <p>The cluster's jars cannot share a classpath with {@code rocketmq-client-java}, so they never
 * appear on the caller's classpath: the txmsg-testkit-cluster jar carries a listing of them, which
 * is resolved against the local Maven repository (system property {@code maven.repo.local}, else
 * {@code localRepository} of {@code ~/.m2/settings.xml}, else {@code ~/.m2/repository}). A jar
 * missing there is downloaded from Maven Central, or from the repository named by system property
 * {@code txmsg.testkit.mavenRepository}.
 *
 * <p>Every instance has its own free ports and its own temporary directory (store, logs under
 * {@code logs/}); several can run side by side. {@link #close()} kills the process and deletes the
 * directory; a JVM shutdown hook kills whatever is still running. If the test JVM dies without
 * running hooks, the cluster halts as soon as its stdin closes.
 *
 * <pre>{@code
 * try (EmbeddedRocketMQ rocketmq = EmbeddedRocketMQ.builder().start()) {
 *   rocketmq.createTopic("orders", TopicType.TRANSACTION);
 *   ClientConfiguration config =
 *       ClientConfiguration.newBuilder().setEndpoints(rocketmq.grpcEndpoint()).build();
 *   ...
 * }
 * }</pre>
 *
 * <p>Tests should prefer {@link #shared()} (or {@link EmbeddedRocketMQTest}), which starts one
 * cluster per test JVM.
 */
public final class EmbeddedRocketMQ implements AutoCloseable {
  private static final String MAIN_CLASS = "io.txmsg.testkit.cluster.ClusterMain";
  private static final String READY = "TXMSG-CLUSTER-READY";
  private static final int TAIL_LINES = 60;
  private static final String TEMP_DIR_PREFIX = "txmsg-rocketmq-";
  private static final String OWNER_FILE = "owner.pid";
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
  private static final Set<EmbeddedRocketMQ> RUNNING = ConcurrentHashMap.newKeySet();
  private static final Object SHARED_LOCK = new Object();
  private static volatile EmbeddedRocketMQ shared;

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (EmbeddedRocketMQ rocketmq : RUNNING) {
                    rocketmq.closeQuietly();
                  }
                },
                "txmsg-embedded-rocketmq-shutdown"));
  }

  private final Builder settings;
  private final List<Path> classpath;
  private final Path tempDir;
  private final int namesrvPort;
  private final int brokerPort;
  private final int haPort;
  private final int grpcPort;
  private Node node;
  private boolean closed;

  private EmbeddedRocketMQ(Builder settings, List<Path> classpath, Path tempDir, int[] ports) {
    this.settings = settings;
    this.classpath = classpath;
    this.tempDir = tempDir;
    this.namesrvPort = ports[0];
    this.brokerPort = ports[1];
    this.haPort = ports[2];
    this.grpcPort = ports[3];
  }

  /** A builder with the defaults documented on each setter. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The cluster shared by everything in this JVM, started with the builder defaults on first use
   * and killed when the JVM ends (or by {@link #closeShared()}). System properties named {@code
   * txmsg.testkit.proxy.<key>} and {@code txmsg.testkit.broker.<key>} set proxy and broker
   * properties of the shared cluster (e.g. a test module that kills consumers shortens the broker's
   * {@code channelExpiredTimeout}).
   */
  public static EmbeddedRocketMQ shared() {
    EmbeddedRocketMQ current = shared;
    if (current != null && current.isRunning()) {
      return current;
    }
    synchronized (SHARED_LOCK) {
      if (shared == null || !shared.isRunning()) {
        Builder b = builder();
        String proxy = "txmsg.testkit.proxy.";
        String broker = "txmsg.testkit.broker.";
        System.getProperties()
            .stringPropertyNames()
            .forEach(
                k -> {
                  if (k.startsWith(proxy)) {
                    b.proxyProperty(k.substring(proxy.length()), System.getProperty(k));
                  } else if (k.startsWith(broker)) {
                    b.brokerProperty(k.substring(broker.length()), System.getProperty(k));
                  }
                });
        shared = b.start();
      }
      return shared;
    }
  }

  /** Kills the shared cluster, if one was started. A later {@link #shared()} starts a new one. */
  public static void closeShared() {
    synchronized (SHARED_LOCK) {
      if (shared != null) {
        shared.close();
        shared = null;
      }
    }
  }

  /**
   * The user (access key) of a cluster started {@link Builder#withAuthentication with
   * authentication}, else null.
   */
  public String authenticationUser() {
    return settings.authUser;
  }

  /**
   * The password (secret key) of a cluster started {@link Builder#withAuthentication with
   * authentication}, else null. Never part of {@link #toString()}.
   */
  public String authenticationPassword() {
    return settings.authPassword;
  }

  /** The gRPC endpoint for {@code rocketmq-client-java}, {@code 127.0.0.1:<port>}. */
  public String grpcEndpoint() {
    return "127.0.0.1:" + grpcPort;
  }

  /** The NameServer address for remoting-protocol clients, {@code 127.0.0.1:<port>}. */
  public String namesrvAddress() {
    return "127.0.0.1:" + namesrvPort;
  }

  /** The broker's remoting port (the broker also binds this port minus 2 and an HA port). */
  public int brokerPort() {
    return brokerPort;
  }

  /**
   * The cluster JVM's memory and garbage-collector options, in the order they are passed: heap,
   * direct memory, collector, then each {@link Builder#jvmArgument extra argument}.
   */
  public List<String> jvmOptions() {
    List<String> options = new ArrayList<>();
    options.add("-Xms" + settings.minHeap);
    options.add("-Xmx" + settings.maxHeap);
    options.add("-XX:MaxDirectMemorySize=" + settings.maxDirectMemory);
    options.add(settings.garbageCollector);
    options.addAll(settings.jvmArguments);
    return options;
  }

  /** The directory holding the store, the logs ({@code logs/}) and the cluster's temp files. */
  public Path tempDir() {
    return tempDir;
  }

  /** The process id of the cluster JVM. */
  public synchronized long pid() {
    checkOpen();
    return node.process.pid();
  }

  /** Whether the cluster process is alive and {@link #close()} was not called. */
  public synchronized boolean isRunning() {
    return !closed && node != null && node.process.isAlive();
  }

  /**
   * Creates (or updates) a topic with 4 queues and waits until its route resolves from the
   * NameServer.
   */
  public void createTopic(String topic, TopicType type) {
    createTopic(topic, type, 4);
  }

  /**
   * Creates (or updates) a topic and waits until its route resolves from the NameServer.
   *
   * @param queues the number of read and write queues
   */
  public void createTopic(String topic, TopicType type, int queues) {
    requireName(topic, "topic");
    Objects.requireNonNull(type, "type");
    if (queues < 1) {
      throw new IllegalArgumentException("queues must be at least 1, was " + queues);
    }
    command("topic " + topic + " " + type.name() + " " + queues);
  }

  /**
   * Sets an existing topic's permission as RocketMQ encodes it: 2 write-only (how a 4.x broker
   * creates {@code %DLQ%} topics), 4 read-only, 6 read-write.
   */
  public void setTopicPermission(String topic, int perm) {
    requireName(topic, "topic");
    command("perm " + topic + " " + perm);
  }

  /**
   * Creates (or updates) a consumer group whose failed deliveries are retried with exponential
   * backoff; after the last attempt a message goes to {@code %DLQ%<group>}.
   *
   * @param retryMaxTimes redeliveries after the first attempt
   * @param initialBackoff the first retry delay
   * @param maxBackoff the largest retry delay
   */
  public void createConsumerGroup(
      String group, int retryMaxTimes, Duration initialBackoff, Duration maxBackoff) {
    createConsumerGroup(group, retryMaxTimes, initialBackoff, maxBackoff, false);
  }

  /**
   * Like {@link #createConsumerGroup(String, int, Duration, Duration)}; with {@code fifo} the group
   * consumes a FIFO topic in order (one message group at a time).
   */
  public void createConsumerGroup(
      String group, int retryMaxTimes, Duration initialBackoff, Duration maxBackoff, boolean fifo) {
    requireName(group, "group");
    if (retryMaxTimes < 0) {
      throw new IllegalArgumentException("retryMaxTimes must not be negative");
    }
    command(
        "group "
            + group
            + " "
            + retryMaxTimes
            + " "
            + initialBackoff.toMillis()
            + " "
            + maxBackoff.toMillis()
            + (fifo ? " fifo" : ""));
  }

  /**
   * Waits until the consumer group has an online consumer on the broker: a client of the group has
   * sent its heartbeat through the proxy and the broker lists its channel. Use it instead of
   * sleeping or sending warm-up messages after starting a push consumer: a message sent before the
   * subscription is live is not lost, but tests that measure or time deliveries want the
   * subscription in place first.
   *
   * @throws EmbeddedRocketMQException if the group has no online consumer within the timeout
   */
  public void awaitSubscribed(String group, Duration timeout) {
    awaitSubscribed(group, null, timeout);
  }

  /**
   * Like {@link #awaitSubscribed(String, Duration)}, and the group's subscription includes {@code
   * topic}.
   */
  public void awaitSubscribed(String group, String topic, Duration timeout) {
    requireName(group, "group");
    if (topic != null) {
      requireName(topic, "topic");
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    String line = "subscribed " + group + (topic == null ? "" : " " + topic);
    while (!command(line).startsWith("OK yes")) {
      if (System.nanoTime() > deadline) {
        throw new EmbeddedRocketMQException(
            "consumer group "
                + group
                + " has no online consumer"
                + (topic == null ? "" : " subscribed to " + topic)
                + " after "
                + timeout);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new EmbeddedRocketMQException("interrupted while waiting for group " + group, e);
      }
    }
  }

  /**
   * Makes a group that has never consumed {@code topic} start at each queue's first message. Call
   * it before the group subscribes, in a test that sends right after subscribing.
   *
   * <p>Why: a group with no committed offset starts where RocketMQ decides at its first rebalance,
   * which may come after {@link #awaitSubscribed} returned. Over remoting (the client's default
   * {@code CONSUME_FROM_LAST_OFFSET}) the broker answers 0 only when the queue's first message is
   * already stored, else the client asks for the queue's max offset: a message stored between the
   * two answers is never delivered to that group. With an offset committed here, both transports'
   * first pull starts at the queue's first message. Queues where the group has an offset keep it.
   * The offsets are written to the store at once, so they survive a {@link #stop()} (a kill) right
   * after this call.
   */
  public void startGroupAtFirstMessage(String group, String topic) {
    requireName(group, "group");
    requireName(topic, "topic");
    command("startat " + group + " " + topic);
  }

  /**
   * Where a topic's messages stand for a group, for a test's failure message: per queue {@code
   * <queue>:<min>-<max>@<group's consume offset, "-" if none>}, e.g. {@code "0:0-1@1 1:0-0@-"}. A
   * message the broker stored raises a queue's max; a consume offset below max is not yet consumed
   * by the group. Never throws: a failure is described in the returned text.
   */
  public String describeQueues(String topic, String group) {
    try {
      requireName(topic, "topic");
      requireName(group, "group");
      return command("queues " + topic + " " + group).replaceFirst("^OK ?", "");
    } catch (RuntimeException e) {
      return "queues of " + topic + " not available: " + e.getMessage();
    }
  }

  /**
   * The broker's topic for the half messages it stopped checking after {@code transactionCheckMax}
   * check-backs (RocketMQ's {@code TRANS_CHECK_MAX_TIME_TOPIC}), which a remoting producer's
   * give-up drain reads.
   */
  public static final String GIVE_UP_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC";

  /**
   * Creates a normal ACL 2.0 user on a cluster started {@link Builder#withAuthentication with
   * authentication}: it can authenticate but may do nothing until {@link #grant} allows it (the
   * cluster denies by default). Clients sign with {@code password} as their secret key.
   *
   * @throws EmbeddedRocketMQException if the cluster runs without authentication or refuses
   */
  public void createUser(String user, String password) {
    requireName(user, "user");
    requireName(password, "password");
    command("user " + user + " " + password);
  }

  /**
   * Allows {@code user} the {@code actions} ({@code PUB}, {@code SUB}, {@code GET}, ...: RocketMQ's
   * ACL 2.0 action names) on one resource, written as RocketMQ's {@code mqadmin createAcl} takes
   * it: {@code Topic:<name>} or {@code Group:<name>}, with a trailing {@code *} for a prefix. Adds
   * to the rights the user has. The broker and the proxy both enforce it.
   */
  public void grant(String user, String resource, String... actions) {
    requireName(user, "user");
    requireName(resource, "resource");
    if (actions.length == 0) {
      throw new IllegalArgumentException("actions: at least one is needed");
    }
    for (String a : actions) {
      requireName(a, "actions");
    }
    command("grant " + user + " " + resource + " " + String.join(",", actions));
  }

  /**
   * How many half messages sent to {@code topic} the broker has given up on: moved to {@link
   * #GIVE_UP_TOPIC} after {@code transactionCheckMax} check-backs went unanswered. Read from the
   * broker's store, so it works whichever transport sent them and moves no consumer's offsets. A
   * test that needs the broker to have given up (before it starts a producer that would answer the
   * next check-back) polls this instead of sleeping for the broker's check timing.
   */
  public long givenUp(String topic) {
    requireName(topic, "topic");
    return Long.parseLong(command("givenup " + topic).replaceFirst("^OK ", "").trim());
  }

  /**
   * What the broker still holds for a consumer group on a topic, or an empty string when the group
   * has consumed all of it: its committed offset at the max offset of every queue of the topic, of
   * its retry topic {@code %RETRY%<group>} and of the pop retry topics of the pair, and no message
   * popped and not yet acked (pop consumption, as the gRPC proxy does it, commits the offset when
   * it hands a message out; the broker's in-flight count covers the rest until the ack or the
   * revive). The in-flight count is kept in the broker's memory: after {@link #restart()} the
   * messages popped before it are not counted (they come back after their invisible time). A
   * remoting consumer commits its offsets every few seconds, so a caller polls.
   *
   * @return "" when drained, else one {@code topic#queue:offset=<o>/max=<m>,inflight=<n>} entry per
   *     queue not drained
   */
  public String undrained(String topic, String group) {
    requireName(topic, "topic");
    requireName(group, "group");
    String answer = command("drained " + topic + " " + group);
    return answer.startsWith("OK yes") ? "" : answer.replaceFirst("^OK no ?", "");
  }

  /**
   * The running broker's value of a broker or message-store property (as RocketMQ names it, e.g.
   * {@code channelExpiredTimeout}, {@code transactionCheckMax}, {@code messageDelayLevel}): the
   * value the cluster was started with, whether the builder, a system property or RocketMQ's
   * default set it.
   */
  public String brokerSetting(String key) {
    requireName(key, "key");
    return command("setting " + key).replaceFirst("^OK ?", "");
  }

  /**
   * Kills the cluster process (like a crash: no graceful shutdown) and starts it again on the same
   * store directory and the same ports. Returns once it is ready again.
   */
  public synchronized void restart() {
    stop();
    start();
  }

  /**
   * Kills the cluster process (like a crash: no graceful shutdown) and keeps its ports and store
   * directory, so that {@link #start()} brings the same cluster back: its topics, groups and
   * messages. Meanwhile nothing listens on its addresses, as when a broker is down: e.g. to start
   * an application while the broker is unreachable. No-op when already stopped.
   */
  public synchronized void stop() {
    checkOpen();
    kill(node);
    node = null;
  }

  /**
   * Starts a {@link #stop() stopped} cluster again on the same ports and store directory; returns
   * once it is ready. No-op when it runs.
   *
   * @throws EmbeddedRocketMQException when it does not become ready, or a port stays taken
   */
  public synchronized void start() {
    checkOpen();
    if (node != null && node.process.isAlive()) {
      return;
    }
    kill(node);
    node = null;
    awaitPortsFree(Duration.ofSeconds(20));
    node = launch();
  }

  /** Kills the cluster process, waits for it to exit and deletes {@link #tempDir()}. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      RUNNING.remove(this);
      kill(node);
      TempDirectories.deleteRecursively(tempDir);
    }
  }

  private void closeQuietly() {
    try {
      close();
    } catch (RuntimeException e) {
      // shutting down: nothing left to report to
    }
  }

  @Override
  public String toString() {
    return "EmbeddedRocketMQ[grpc="
        + grpcEndpoint()
        + ", namesrv="
        + namesrvAddress()
        + (settings.authUser == null ? "" : ", user=" + settings.authUser)
        + "]";
  }

  private static void requireName(String name, String what) {
    if (name == null || name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(what + " name must be non-blank without spaces: " + name);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("closed: " + this);
    }
  }

  private synchronized String command(String line) {
    checkOpen();
    Node current = node;
    if (current == null || !current.process.isAlive()) {
      throw new EmbeddedRocketMQException(
          "cluster process is not running: "
              + this
              + (current == null ? "" : current.describeTail()));
    }
    try {
      current.answers.clear();
      current.stdin.write(line);
      current.stdin.write('\n');
      current.stdin.flush();
      String answer = current.answers.poll(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (answer == null) {
        throw new EmbeddedRocketMQException(
            "no answer within " + COMMAND_TIMEOUT + " to: " + line + current.describeTail());
      }
      if (!answer.startsWith("OK")) {
        throw new EmbeddedRocketMQException(
            "cluster refused '" + line + "': " + answer.replaceFirst("^ERR ?", ""));
      }
      return answer;
    } catch (IOException e) {
      throw new EmbeddedRocketMQException(
          "cannot talk to the cluster process" + current.describeTail(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EmbeddedRocketMQException("interrupted while waiting for: " + line, e);
    }
  }

  // ---------------------------------------------------------------- starting

  private static EmbeddedRocketMQ start(Builder settings) {
    LocalRepositoryResolver resolver =
        new LocalRepositoryResolver(
            settings.localRepository != null
                ? settings.localRepository
                : LocalRepositoryResolver.defaultLocalRepository(),
            settings.remoteRepository != null
                ? settings.remoteRepository
                : LocalRepositoryResolver.defaultRemoteRepository(),
            System.err::println);
    List<Path> classpath;
    Path tempDir;
    try {
      classpath = ClusterClasspath.resolve(resolver);
      deleteOrphanedTempDirs();
      tempDir = Files.createTempDirectory(TEMP_DIR_PREFIX);
      Files.writeString(tempDir.resolve(OWNER_FILE), Long.toString(ProcessHandle.current().pid()));
    } catch (IOException e) {
      throw new EmbeddedRocketMQException("cannot prepare the cluster classpath: " + e, e);
    }
    EmbeddedRocketMQ rocketmq = new EmbeddedRocketMQ(settings, classpath, tempDir, freePorts());
    try {
      rocketmq.writeSettings();
      RUNNING.add(rocketmq);
      synchronized (rocketmq) {
        rocketmq.node = rocketmq.launch();
      }
      return rocketmq;
    } catch (RuntimeException | Error e) {
      rocketmq.closeQuietly();
      throw e;
    }
  }

  /**
   * Deletes the directories of clusters whose test JVM was killed without running its shutdown
   * hooks (their cluster halted when its stdin closed, but the directory stayed).
   */
  private static void deleteOrphanedTempDirs() {
    Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
    try (Stream<Path> dirs = Files.list(tmp)) {
      dirs.filter(d -> d.getFileName().toString().startsWith(TEMP_DIR_PREFIX))
          .filter(d -> Files.isRegularFile(d.resolve(OWNER_FILE)))
          .filter(EmbeddedRocketMQ::ownerIsGone)
          .forEach(TempDirectories::deleteRecursively);
    } catch (IOException | RuntimeException e) {
      // best effort only
    }
  }

  private static boolean ownerIsGone(Path dir) {
    try {
      long owner = Long.parseLong(Files.readString(dir.resolve(OWNER_FILE)).trim());
      return ProcessHandle.of(owner).map(h -> !h.isAlive()).orElse(true);
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  private void writeSettings() {
    Properties properties = new Properties();
    properties.setProperty("dir", tempDir.toString());
    properties.setProperty("namesrvPort", Integer.toString(namesrvPort));
    properties.setProperty("brokerPort", Integer.toString(brokerPort));
    properties.setProperty("haPort", Integer.toString(haPort));
    properties.setProperty("grpcPort", Integer.toString(grpcPort));
    properties.setProperty(
        "transactionCheckInterval", Long.toString(settings.transactionCheckInterval.toMillis()));
    properties.setProperty(
        "transactionTimeOut", Long.toString(settings.transactionTimeout.toMillis()));
    properties.setProperty("transactionCheckMax", Integer.toString(settings.transactionCheckMax));
    properties.setProperty(
        "transactionOpBatchInterval",
        Long.toString(settings.transactionOpBatchInterval.toMillis()));
    properties.setProperty(
        "longPollingMinMillis", Long.toString(settings.minLongPollingTimeout.toMillis()));
    properties.setProperty(
        "longPollingMaxMillis", Long.toString(settings.maxLongPollingTimeout.toMillis()));
    if (settings.authUser != null) {
      properties.setProperty("auth.user", settings.authUser);
      properties.setProperty("auth.password", settings.authPassword);
    }
    settings.brokerProperties.forEach((k, v) -> properties.setProperty("broker." + k, v));
    settings.proxyProperties.forEach((k, v) -> properties.setProperty("proxy." + k, v));
    try (Writer out =
        Files.newBufferedWriter(tempDir.resolve("cluster.properties"), StandardCharsets.UTF_8)) {
      properties.store(out, "txmsg-testkit embedded RocketMQ");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Node launch() {
    List<String> command = new ArrayList<>();
    boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
    command.add(
        Paths.get(System.getProperty("java.home"), "bin", windows ? "java.exe" : "java")
            .toString());
    command.addAll(jvmOptions());
    command.add("-Duser.home=" + tempDir);
    command.add("-Djava.io.tmpdir=" + tempDir);
    command.add("-Dfile.encoding=UTF-8");
    command.add("@" + writeArgumentFile());
    command.add(MAIN_CLASS);
    command.add(tempDir.resolve("cluster.properties").toString());

    ProcessBuilder builder = new ProcessBuilder(command).directory(tempDir.toFile());
    long started = System.nanoTime();
    Process process;
    try {
      Files.createDirectories(tempDir.resolve("logs"));
      process = builder.start();
    } catch (IOException e) {
      throw new EmbeddedRocketMQException("cannot start " + command.get(0), e);
    }
    Node fresh = new Node(process, tempDir.resolve("logs").resolve("cluster-console.log"));
    try {
      fresh.ready.get(settings.startTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      kill(fresh);
      String why =
          e instanceof TimeoutException
              ? "did not become ready within " + settings.startTimeout
              : "exited before it was ready (exit code " + exitCode(process) + ")";
      throw new EmbeddedRocketMQException(
          "Embedded RocketMQ " + why + "; logs in " + tempDir + fresh.describeTail());
    } catch (InterruptedException e) {
      kill(fresh);
      Thread.currentThread().interrupt();
      throw new EmbeddedRocketMQException("interrupted while starting the cluster", e);
    }
    fresh.log(
        String.format(
            Locale.ROOT,
            "txmsg-testkit: ready in %d ms (pid %d)",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
            process.pid()));
    return fresh;
  }

  private static String exitCode(Process process) {
    try {
      return process.waitFor(2, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "?";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }

  /** The classpath goes into an argument file: it is long, and Windows limits command lines. */
  private Path writeArgumentFile() {
    String joined =
        classpath.stream()
            .map(p -> p.toAbsolutePath().toString())
            .collect(Collectors.joining(java.io.File.pathSeparator));
    String quoted = "\"" + joined.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    Path file = tempDir.resolve("cluster.args");
    try {
      Files.writeString(file, "-cp\n" + quoted + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  private static void kill(Node node) {
    if (node == null) {
      return;
    }
    Process process = node.process;
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new EmbeddedRocketMQException("cluster process " + process.pid() + " did not exit");
      }
      node.stdoutReader.join(2000);
      node.stderrReader.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      node.closeStreams();
    }
  }

  /** namesrv, broker (which also binds broker-2), HA and gRPC ports, all distinct and free. */
  private static int[] freePorts() {
    List<ServerSocket> held = new ArrayList<>();
    try {
      int namesrv = hold(0, held);
      int broker;
      while (true) {
        int candidate = hold(0, held);
        if (candidate > 1026 && tryHold(candidate - 2, held)) {
          broker = candidate;
          break;
        }
      }
      int ha = hold(0, held);
      int grpc = hold(0, held);
      return new int[] {namesrv, broker, ha, grpc};
    } finally {
      for (ServerSocket socket : held) {
        try {
          socket.close();
        } catch (IOException e) {
          // ignore
        }
      }
    }
  }

  private static int hold(int port, List<ServerSocket> held) {
    try {
      ServerSocket socket = new ServerSocket();
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(port));
      held.add(socket);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }

  private static boolean tryHold(int port, List<ServerSocket> held) {
    try {
      hold(port, held);
      return true;
    } catch (UncheckedIOException e) {
      return false;
    }
  }

  private void awaitPortsFree(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int port : new int[] {namesrvPort, brokerPort, brokerPort - 2, haPort, grpcPort}) {
      while (true) {
        try (ServerSocket socket = new ServerSocket()) {
          socket.setReuseAddress(true);
          socket.bind(new InetSocketAddress(port));
          break;
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw new EmbeddedRocketMQException("port " + port + " still in use after " + timeout);
          }
          try {
            Thread.sleep(100);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new EmbeddedRocketMQException("interrupted", ie);
          }
        }
      }
    }
  }

  /** One run of the cluster process, with the threads that keep its output drained. */
  private static final class Node {
    final Process process;
    final BufferedWriter stdin;
    final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    final CompletableFuture<String> ready = new CompletableFuture<>();
    private final Deque<String> tail = new ArrayDeque<>();
    private final Writer console;
    final Thread stdoutReader;
    final Thread stderrReader;

    Node(Process process, Path consoleLog) {
      this.process = process;
      this.stdin =
          new BufferedWriter(
              new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
      Writer log;
      try {
        log =
            Files.newBufferedWriter(
                consoleLog,
                StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
      } catch (IOException e) {
        log = Writer.nullWriter();
      }
      this.console = log;
      this.stdoutReader = drain(process.getInputStream(), true, "stdout");
      this.stderrReader = drain(process.getErrorStream(), false, "stderr");
    }

    private Thread drain(InputStream stream, boolean protocol, String name) {
      Thread thread =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = in.readLine()) != null) {
                    if (protocol && line.startsWith(READY)) {
                      log(line);
                      ready.complete(line);
                    } else if (protocol && (line.startsWith("OK") || line.startsWith("ERR"))) {
                      answers.add(line);
                    } else {
                      log(line);
                    }
                  }
                } catch (IOException e) {
                  // the process is gone
                } finally {
                  if (protocol) {
                    ready.completeExceptionally(new IOException("cluster output closed"));
                    answers.add("ERR cluster process exited");
                  }
                }
              },
              "txmsg-embedded-rocketmq-" + name + "-" + process.pid());
      thread.setDaemon(true);
      thread.start();
      return thread;
    }

    synchronized void log(String line) {
      tail.addLast(line);
      while (tail.size() > TAIL_LINES) {
        tail.removeFirst();
      }
      try {
        console.write(line);
        console.write(System.lineSeparator());
        console.flush();
      } catch (IOException e) {
        // the console log is a convenience only
      }
    }

    synchronized String describeTail() {
      if (tail.isEmpty()) {
        return "";
      }
      return "\n--- last lines of the cluster output ---\n" + String.join("\n", tail);
    }

    synchronized void closeStreams() {
      try {
        stdin.close();
      } catch (IOException e) {
        // already closed
      }
      try {
        console.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }

  /**
   * Settings of an {@link EmbeddedRocketMQ}. The transaction defaults are fast (checks start about
   * 3 s after an unresolved send) so tests of check-back finish quickly; production defaults are
   * much slower (check interval 30 s, timeout 6 s).
   */
  public static final class Builder {
    private Duration transactionCheckInterval = Duration.ofMillis(1000);
    private Duration transactionTimeout = Duration.ofMillis(2000);
    private int transactionCheckMax = 15;
    private Duration transactionOpBatchInterval = Duration.ofMillis(100);
    private Duration minLongPollingTimeout = Duration.ofMillis(1000);
    private Duration maxLongPollingTimeout = Duration.ofMillis(3000);
    private Duration startTimeout = Duration.ofSeconds(180);
    private String minHeap = "64m";
    private String maxHeap = "256m";
    private String garbageCollector = "-XX:+UseSerialGC";
    private String maxDirectMemory = "1g";
    private final List<String> jvmArguments = new ArrayList<>();
    private final Map<String, String> brokerProperties = new LinkedHashMap<>();
    private final Map<String, String> proxyProperties = new LinkedHashMap<>();
    private Path localRepository;
    private URI remoteRepository;
    private String authUser;
    private String authPassword;

    private Builder() {}

    /**
     * Turns on RocketMQ ACL 2.0 authentication and authorization on the broker (remoting) and the
     * proxy (gRPC), with {@code user} as the one super user (its password is the secret key clients
     * sign with). Off by default. The testkit's own commands (topics, groups) run inside the
     * cluster process and need no credentials; clients do (e.g. {@code
     * BrokerConnection.withCredentials(user, password)}, which {@code TestTransport} adds on such a
     * cluster).
     */
    public Builder withAuthentication(String user, String password) {
      requireName(Objects.requireNonNull(user, "user"), "user");
      Objects.requireNonNull(password, "password");
      if (password.isEmpty() || password.chars().anyMatch(c -> c == '\n' || c == '\r')) {
        throw new IllegalArgumentException("password must be non-empty, on one line");
      }
      this.authUser = user;
      this.authPassword = password;
      return this;
    }

    /** How often the broker scans for unresolved half messages. Default 1 s. */
    public Builder transactionCheckInterval(Duration interval) {
      this.transactionCheckInterval = positive(interval, "transactionCheckInterval");
      return this;
    }

    /**
     * How old a half message must be before the broker checks it back. Default 2 s. Keep it above
     * the time a local transaction may take in the test, or a commit can be checked (and delivered)
     * twice.
     */
    public Builder transactionTimeout(Duration timeout) {
      this.transactionTimeout = positive(timeout, "transactionTimeout");
      return this;
    }

    /**
     * How many check-backs answered UNKNOWN before the broker gives up (the half message goes to
     * {@code TRANS_CHECK_MAX_TIME_TOPIC} and is never delivered). Default 15.
     */
    public Builder transactionCheckMax(int checks) {
      if (checks < 1) {
        throw new IllegalArgumentException("transactionCheckMax must be at least 1, was " + checks);
      }
      this.transactionCheckMax = checks;
      return this;
    }

    /**
     * How often the broker batches its commit/rollback op records. Default 100 ms; the broker's own
     * default of 3 s makes resolved half messages be checked again with fast checks.
     */
    public Builder transactionOpBatchInterval(Duration interval) {
      this.transactionOpBatchInterval = positive(interval, "transactionOpBatchInterval");
      return this;
    }

    /**
     * The proxy's bounds on a consumer's long poll. Default 1 s .. 3 s, so that {@code
     * PushConsumer.close()} returns within a few seconds.
     */
    public Builder longPollingTimeout(Duration min, Duration max) {
      positive(min, "min long polling timeout");
      positive(max, "max long polling timeout");
      if (min.compareTo(max) > 0) {
        throw new IllegalArgumentException("long polling min " + min + " exceeds max " + max);
      }
      this.minLongPollingTimeout = min;
      this.maxLongPollingTimeout = max;
      return this;
    }

    /**
     * How long to wait for the cluster to be ready. Default 180 s: CI's logs show starts of 8 to 22
     * s on the 2-core machine, but a test class that started a cluster of its own while the
     * parallel build started others saw the NameServer alone take 28 s and the whole start exceed
     * 60 s (the wait only bounds a failure; a ready cluster returns at once).
     */
    public Builder startTimeout(Duration timeout) {
      this.startTimeout = positive(timeout, "startTimeout");
      return this;
    }

    /** The cluster JVM's {@code -Xms}. Default {@code 64m}. */
    public Builder minHeap(String size) {
      this.minHeap = Objects.requireNonNull(size, "minHeap");
      return this;
    }

    /** The cluster JVM's {@code -Xmx}. Default {@code 256m}. */
    public Builder maxHeap(String size) {
      this.maxHeap = Objects.requireNonNull(size, "maxHeap");
      return this;
    }

    /**
     * The cluster JVM's {@code -XX:MaxDirectMemorySize}. Default {@code 1g} (reserved on demand):
     * 256m ran out after a few dozen topics and consumer groups in one test JVM; 64m is too little
     * (commits fail).
     */
    public Builder maxDirectMemory(String size) {
      this.maxDirectMemory = Objects.requireNonNull(size, "maxDirectMemory");
      return this;
    }

    /**
     * The cluster JVM's garbage collector, as its JVM option (e.g. {@code -XX:+UseG1GC}; tune it
     * with {@link #jvmArgument}). Default {@code -XX:+UseSerialGC}: the smallest footprint for a
     * test cluster; a collector added with {@link #jvmArgument} instead would conflict with it.
     *
     * @throws IllegalArgumentException if {@code option} is not of the form {@code -XX:+Use…GC}
     */
    public Builder garbageCollector(String option) {
      Objects.requireNonNull(option, "garbageCollector");
      if (!option.matches("-XX:\\+Use[A-Za-z0-9]+GC")) {
        throw new IllegalArgumentException(
            "garbageCollector must be a JVM option like -XX:+UseG1GC, was " + option);
      }
      this.garbageCollector = option;
      return this;
    }

    /**
     * An extra argument for the cluster JVM, e.g. {@code -XX:G1HeapRegionSize=16m}. None by
     * default.
     */
    public Builder jvmArgument(String argument) {
      jvmArguments.add(Objects.requireNonNull(argument, "argument"));
      return this;
    }

    /**
     * A broker setting (a property of {@code BrokerConfig} or {@code MessageStoreConfig}, e.g.
     * {@code maxMessageSize}), applied after the testkit's own settings.
     */
    public Builder brokerProperty(String key, String value) {
      brokerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value));
      return this;
    }

    /** A proxy setting (a property of the proxy's {@code ProxyConfig}). */
    public Builder proxyProperty(String key, String value) {
      proxyProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value));
      return this;
    }

    /** The local Maven repository to resolve the cluster's jars in. Default: see class doc. */
    public Builder localRepository(Path repository) {
      this.localRepository = Objects.requireNonNull(repository, "localRepository");
      return this;
    }

    /**
     * The remote repository missing jars are downloaded from. Default: system property {@code
     * txmsg.testkit.mavenRepository}, else Maven Central.
     */
    public Builder remoteRepository(URI repository) {
      this.remoteRepository = Objects.requireNonNull(repository, "remoteRepository");
      return this;
    }

    /**
     * Forks the cluster JVM and waits until it is ready.
     *
     * @throws EmbeddedRocketMQException if it does not start in time; the message ends with the
     *     last lines of its output
     */
    public EmbeddedRocketMQ start() {
      return EmbeddedRocketMQ.start(copy());
    }

    private Builder copy() {
      Builder copy = new Builder();
      copy.transactionCheckInterval = transactionCheckInterval;
      copy.transactionTimeout = transactionTimeout;
      copy.transactionCheckMax = transactionCheckMax;
      copy.transactionOpBatchInterval = transactionOpBatchInterval;
      copy.minLongPollingTimeout = minLongPollingTimeout;
      copy.maxLongPollingTimeout = maxLongPollingTimeout;
      copy.startTimeout = startTimeout;
      copy.minHeap = minHeap;
      copy.maxHeap = maxHeap;
      copy.garbageCollector = garbageCollector;
      copy.maxDirectMemory = maxDirectMemory;
      copy.jvmArguments.addAll(jvmArguments);
      copy.brokerProperties.putAll(brokerProperties);
      copy.proxyProperties.putAll(proxyProperties);
      copy.localRepository = localRepository;
      copy.remoteRepository = remoteRepository;
      copy.authUser = authUser;
      copy.authPassword = authPassword;
      return copy;
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
      return value;
    }
  }
}
