package io.txmsg.testkit.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalRepositoryResolverTest {
  private static final String JAR = "org/example/demo/1.0/demo-1.0.jar";

  @TempDir Path remote;
  @TempDir Path local;
  private final List<String> progress = new ArrayList<>();

  private LocalRepositoryResolver resolver() {
    return new LocalRepositoryResolver(local, remote.toUri(), progress::add);
  }

  private void publish(String relative, byte[] content) throws IOException {
    Path file = remote.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.write(file, content);
  }

  @Test
  void downloadsMissingJarIntoLocalRepository() throws Exception {
    publish(JAR, "remote bytes".getBytes(StandardCharsets.UTF_8));

    Path resolved = resolver().resolve(JAR);

    assertThat(resolved).isEqualTo(local.resolve(JAR));
    assertThat(resolved).hasContent("remote bytes");
    assertThat(progress).singleElement().asString().contains("downloaded", "demo-1.0.jar");
    try (var leftovers = Files.list(resolved.getParent())) {
      assertThat(leftovers).containsExactly(resolved); // no .part file left behind
    }
  }

  @Test
  void reusesJarPresentInLocalRepository() throws Exception {
    publish(JAR, "remote bytes".getBytes(StandardCharsets.UTF_8));
    Path present = local.resolve(JAR);
    Files.createDirectories(present.getParent());
    Files.writeString(present, "local bytes");
    Files.setLastModifiedTime(present, FileTime.fromMillis(1_000_000));

    Path resolved = resolver().resolve(JAR);

    assertThat(resolved).isEqualTo(present).hasContent("local bytes");
    assertThat(Files.getLastModifiedTime(present).toMillis()).isEqualTo(1_000_000);
    assertThat(progress).isEmpty();
  }

  @Test
  void rejectsDownloadThatFailsItsChecksum() throws Exception {
    publish(JAR, "tampered".getBytes(StandardCharsets.UTF_8));
    publish(JAR + ".sha1", "0000000000000000000000000000000000000000".getBytes());

    assertThatThrownBy(() -> resolver().resolve(JAR)).hasMessageContaining("checksum mismatch");
    assertThat(local.resolve(JAR)).doesNotExist();
  }

  @Test
  void acceptsDownloadMatchingItsChecksum() throws Exception {
    byte[] content = "good".getBytes(StandardCharsets.UTF_8);
    publish(JAR, content);
    String sha1 =
        HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1").digest(content));
    publish(JAR + ".sha1", (sha1 + "  demo-1.0.jar").getBytes(StandardCharsets.US_ASCII));

    assertThat(resolver().resolve(JAR)).hasContent("good");
  }

  @Test
  void reportsJarMissingEverywhere() {
    assertThatThrownBy(() -> resolver().resolve(JAR))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(JAR);
  }

  @Test
  void readsLocalRepositoryFromSettings() throws Exception {
    Path settings = local.resolve("settings.xml");
    Files.writeString(
        settings,
        "<settings xmlns=\"http://maven.apache.org/SETTINGS/1.0.0\">"
            + "<localRepository>${user.home}/custom-repo</localRepository></settings>");

    assertThat(LocalRepositoryResolver.localRepositoryFromSettings(settings))
        .isEqualTo(System.getProperty("user.home") + "/custom-repo");
    assertThat(LocalRepositoryResolver.localRepositoryFromSettings(local.resolve("none.xml")))
        .isNull();
  }
}
