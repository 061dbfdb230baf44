package io.txmsg.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The rocketmq-spring application (module txmsg-bench-spring) in its own JVM, driven over stdin
 * with one command per line; each answers one {@code RESULT} line.
 */
final class SpringChild implements AutoCloseable {
  private final Process process;
  private final Writer in;

  /** The child's user.home (its RocketMQ client logs); deleted when the child has ended. */
  private final Path home;

  private final BlockingQueue<String> results = new LinkedBlockingQueue<>();

  SpringChild(Path classesDir, Path classpathFile, Path logFile, List<String> appArgs)
      throws IOException, InterruptedException {
    String cp = classesDir + java.io.File.pathSeparator + Files.readString(classpathFile).trim();
    home = Files.createTempDirectory("txmsg-bench-spring");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx1g");
    cmd.add("-Duser.home=" + home);
    cmd.add("-Drocketmq.client.logRoot=" + home.resolve("logs"));
    cmd.add("-cp");
    cmd.add(cp);
    cmd.add("io.txmsg.bench.spring.SpringBenchApp");
    cmd.addAll(appArgs);
    process =
        new ProcessBuilder(cmd)
            .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .start();
    in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  if (line.startsWith("RESULT") || line.equals("READY")) {
                    results.add(line);
                  } else {
                    Files.writeString(
                        logFile,
                        line + System.lineSeparator(),
                        java.nio.file.StandardOpenOption.APPEND,
                        java.nio.file.StandardOpenOption.CREATE);
                  }
                }
              } catch (IOException e) {
                // the child ended
              }
              results.add("RESULT error child ended");
            },
            "spring-child-out");
    reader.setDaemon(true);
    reader.start();
    String ready = results.poll(180, TimeUnit.SECONDS);
    if (!"READY".equals(ready)) {
      throw new IllegalStateException("spring child did not start (" + ready + "), see " + logFile);
    }
  }

  long pid() {
    return process.pid();
  }

  /** Sends a command and returns the fields of its RESULT line after "RESULT <kind>". */
  String[] call(String command, long timeoutSeconds) throws Exception {
    in.write(command + "\n");
    in.flush();
    String line = results.poll(timeoutSeconds, TimeUnit.SECONDS);
    if (line == null) {
      throw new IllegalStateException("spring child: no answer to " + command);
    }
    String[] f = line.split(" ");
    if (f.length < 2 || f[1].equals("error")) {
      throw new IllegalStateException("spring child: " + line);
    }
    String[] out = new String[f.length - 2];
    System.arraycopy(f, 2, out, 0, out.length);
    return out;
  }

  @Override
  public void close() throws Exception {
    try {
      in.write("quit\n");
      in.flush();
    } catch (IOException e) {
      // already gone
    }
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
    }
    deleteHome();
  }

  /** Removes the child's temporary home; says so when it cannot (the directory then remains). */
  private void deleteHome() {
    try (Stream<Path> paths = Files.walk(home)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      BenchMain.progress("could not delete the spring child's temp home %s: %s", home, e);
    }
  }
}
