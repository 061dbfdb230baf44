package io.txmsg.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories of forked brokers, file databases and benchmarks. */
public final class TempDirectories {
  private TempDirectories() {}

  /**
   * Deletes {@code dir} and everything below it, best effort: retried a few times, because a
   * process that was just killed may still be releasing its files. Never throws.
   */
  public static void deleteRecursively(Path dir) {
    for (int attempt = 0; attempt < 5 && Files.exists(dir); attempt++) {
      try (Stream<Path> paths = Files.walk(dir)) {
        paths
            .sorted(Comparator.reverseOrder())
            .forEach(
                p -> {
                  try {
                    Files.deleteIfExists(p);
                  } catch (IOException e) {
                    // retried below
                  }
                });
      } catch (IOException | UncheckedIOException e) {
        // retried below
      }
      if (Files.exists(dir)) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
