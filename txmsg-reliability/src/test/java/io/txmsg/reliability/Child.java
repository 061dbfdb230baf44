package io.txmsg.reliability;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running one of this module's mains with the test classpath. Its output lines are
 * queued (and written to target/reliability-logs) so the test can wait for markers such as {@code
 * CRASHPOINT}; {@link #kill()} is SIGKILL: no shutdown hooks, no finally blocks.
 */
final class Child implements AutoCloseable {
  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Map<String, java.util.Set<String>> failedFacts =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final String name;

  private Child(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                      new BufferedReader(
                          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                  PrintWriter w =
                      new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
                String line;
                while ((line = r.readLine()) != null) {
                  w.println(line);
                  if (line.startsWith("TXMSG-REL ")) {
                    String said = line.substring("TXMSG-REL ".length());
                    if (said.startsWith("FAILED ")) {
                      String[] parts = said.split(" ");
                      String why = parts.length > 2 ? parts[2] : "?";
                      failedFacts
                          .computeIfAbsent(
                              why, k -> java.util.concurrent.ConcurrentHashMap.newKeySet())
                          .add(parts[1]);
                    }
                    lines.add(said);
                  }
                }
              } catch (Exception e) {
                // the child died: that is what most tests do to it
              }
            },
            "child-reader-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code main} with {@code key=value} arguments. The pseudo-argument {@code clockSkew}
   * (e.g. "+5m") is not passed on: it runs the child under {@link Faketime} instead.
   */
  static Child start(String name, Class<?> main, Map<String, String> args) throws Exception {
    Map<String, String> childArgs = new LinkedHashMap<>(args);
    String clockSkew = childArgs.remove("clockSkew");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.add("-XX:+UseSerialGC");
    // C1 only: most children live for seconds, and C2's compilations at start cost the two shared
    // cores more than they return (one kill-loop case: 9 % less CPU in all, same wall time).
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    childArgs.forEach((k, v) -> cmd.add(k + "=" + v));
    Path dir = Path.of("target", "reliability-logs");
    Files.createDirectories(dir);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (clockSkew != null) {
      pb.environment().putAll(Faketime.environment(clockSkew));
    }
    Process p = pb.start();
    return new Child(name, p, dir.resolve(name + "-" + p.pid() + ".log"));
  }

  /** Waits for a marker line starting with {@code prefix}; returns the line. */
  String await(String prefix, Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = until - System.nanoTime();
      String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
      if (line == null) {
        throw new AssertionError(
            name + " printed no '" + prefix + "' within " + timeout + " (alive=" + alive() + ")");
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  /** Waits for a marker line starting with any of {@code prefixes}; returns the line. */
  String awaitAny(Duration timeout, String... prefixes) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = until - System.nanoTime();
      String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
      if (line == null) {
        throw new AssertionError(
            name
                + " printed none of "
                + java.util.Arrays.toString(prefixes)
                + " within "
                + timeout
                + " (alive="
                + alive()
                + ")");
      }
      for (String p : prefixes) {
        if (line.startsWith(p)) {
          return line;
        }
      }
    }
  }

  /**
   * How many facts this producer reported FAILED, by exception simple name (e.g.
   * OutcomeUnknownException).
   */
  Map<String, Long> failures() {
    Map<String, Long> m = new java.util.TreeMap<>();
    failedFacts.forEach((k, v) -> m.put(k, (long) v.size()));
    return m;
  }

  /**
   * The facts ({@code f-N}) this producer reported FAILED with the exception {@code simpleName}.
   */
  java.util.Set<String> failedFacts(String simpleName) {
    return java.util.Set.copyOf(failedFacts.getOrDefault(simpleName, java.util.Set.of()));
  }

  boolean alive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL, then wait for the process to be gone. */
  /**
   * Writes {@code line} to the child's standard input (e.g. {@code GO} for a producer started with
   * {@code awaitGo=true}).
   */
  void send(String line) throws java.io.IOException {
    var in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /**
   * The counters of a producer JVM's meter registry ({@code name{tag=value,...}} to count), asked
   * for on its standard input. Lines the child printed before the answer are skipped, so call it
   * when the scenario no longer waits for this child's markers.
   */
  Meters meters() throws Exception {
    send("METERS");
    String line = await("METERS", Duration.ofSeconds(30));
    Map<String, Long> counts = new java.util.TreeMap<>();
    for (String entry : line.substring("METERS".length()).trim().split(" ")) {
      int eq = entry.lastIndexOf('=');
      if (eq > 0) {
        counts.put(entry.substring(0, eq), Long.parseLong(entry.substring(eq + 1)));
      }
    }
    return new Meters(name, counts);
  }

  /** A producer JVM's counters, as {@link #meters()} read them. */
  record Meters(String child, Map<String, Long> counts) {
    /**
     * The sum of the counters named {@code name} whose tags include every {@code key=value} of
     * {@code tags} (e.g. {@code "resolution=COMMIT"}).
     */
    long sum(String name, String... tags) {
      long total = 0;
      for (Map.Entry<String, Long> e : counts.entrySet()) {
        String k = e.getKey();
        int brace = k.indexOf('{');
        if (!(brace < 0 ? k : k.substring(0, brace)).equals(name)) {
          continue;
        }
        java.util.Set<String> have =
            brace < 0
                ? java.util.Set.of()
                : java.util.Set.of(k.substring(brace + 1, k.length() - 1).split(","));
        if (have.containsAll(java.util.List.of(tags))) {
          total += e.getValue();
        }
      }
      return total;
    }

    @Override
    public String toString() {
      return child + " " + counts;
    }
  }

  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGSTOP: every thread stops where it is (a GC pause or a frozen VM, seen from outside). */
  void pause() throws Exception {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  void resume() throws Exception {
    signal("CONT");
  }

  private void signal(String name) throws Exception {
    signal(name, process.pid());
  }

  /** Sends signal {@code name} (STOP, CONT, ...) to process {@code pid}; fails if kill(1) does. */
  static void signal(String name, long pid) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(pid))
            .redirectErrorStream(true)
            .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException(
          "kill -"
              + name
              + " "
              + pid
              + " failed: "
              + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(name + " still running after " + timeout);
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
