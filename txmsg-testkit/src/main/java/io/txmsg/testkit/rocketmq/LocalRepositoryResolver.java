package io.txmsg.testkit.rocketmq;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * Finds a file of a Maven repository layout in the local repository, downloading it from a remote
 * repository when it is missing.
 *
 * <p>A download goes to a temporary file next to the target first and is then moved into place
 * atomically, so a concurrent or interrupted run never sees half a jar. When the remote repository
 * serves a {@code .sha1} file for the artifact, the download is checked against it.
 */
final class LocalRepositoryResolver {
  /** System property overriding the remote repository (a base URL, e.g. a {@code file:} URL). */
  static final String REMOTE_REPOSITORY_PROPERTY = "txmsg.testkit.mavenRepository";

  static final String MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2/";

  private final Path localRepository;
  private final URI remoteRepository;
  private final Consumer<String> progress;

  /**
   * @param localRepository the local repository root, created on the first download
   * @param remoteRepository the remote repository base URI (a trailing slash is added if missing)
   * @param progress receives one line per download
   */
  LocalRepositoryResolver(Path localRepository, URI remoteRepository, Consumer<String> progress) {
    this.localRepository = Objects.requireNonNull(localRepository, "localRepository");
    String base = Objects.requireNonNull(remoteRepository, "remoteRepository").toString();
    this.remoteRepository = URI.create(base.endsWith("/") ? base : base + "/");
    this.progress = Objects.requireNonNull(progress, "progress");
  }

  /** A resolver for the user's local repository and Maven Central (or the configured mirror). */
  static LocalRepositoryResolver forCurrentUser() {
    return new LocalRepositoryResolver(
        defaultLocalRepository(), defaultRemoteRepository(), System.err::println);
  }

  Path localRepository() {
    return localRepository;
  }

  /**
   * Returns the local file for a repository-relative path such as {@code
   * org/apache/rocketmq/rocketmq-broker/5.4.0/rocketmq-broker-5.4.0.jar}, downloading it first if
   * it is not there.
   *
   * @throws IOException if the file is missing locally and cannot be downloaded
   */
  Path resolve(String relativePath) throws IOException {
    String relative = relativePath.replace('\\', '/');
    while (relative.startsWith("/")) {
      relative = relative.substring(1);
    }
    if (relative.isEmpty() || relative.contains("..")) {
      throw new IllegalArgumentException("not a repository path: " + relativePath);
    }
    Path target = localRepository.resolve(relative);
    if (Files.isRegularFile(target)) {
      return target;
    }
    URI source = remoteRepository.resolve(relative);
    Files.createDirectories(target.getParent());
    Path part = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".part");
    try {
      long started = System.nanoTime();
      MessageDigest sha1 = sha1();
      try (InputStream in = open(source)) {
        byte[] buffer = new byte[64 * 1024];
        try (var out = Files.newOutputStream(part)) {
          int n;
          while ((n = in.read(buffer)) >= 0) {
            sha1.update(buffer, 0, n);
            out.write(buffer, 0, n);
          }
        }
      } catch (FileNotFoundException e) {
        throw new IOException("not found in " + remoteRepository + ": " + relative, e);
      }
      String expected = expectedSha1(source);
      String actual = HexFormat.of().formatHex(sha1.digest());
      if (expected != null && !expected.equals(actual)) {
        throw new IOException(
            "checksum mismatch for " + source + ": expected " + expected + ", got " + actual);
      }
      try {
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
      }
      progress.accept(
          String.format(
              Locale.ROOT,
              "txmsg-testkit: downloaded %s (%d KB, %d ms) to %s",
              source,
              Files.size(target) / 1024,
              (System.nanoTime() - started) / 1_000_000,
              target));
      return target;
    } finally {
      Files.deleteIfExists(part);
    }
  }

  private static InputStream open(URI source) throws IOException {
    URLConnection connection = source.toURL().openConnection();
    connection.setConnectTimeout(30_000);
    connection.setReadTimeout(60_000);
    return connection.getInputStream();
  }

  private static String expectedSha1(URI source) {
    try (InputStream in = open(URI.create(source + ".sha1"))) {
      String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
      String hex = text.split("\\s+")[0].toLowerCase(Locale.ROOT);
      return hex.matches("[0-9a-f]{40}") ? hex : null;
    } catch (IOException | RuntimeException e) {
      return null; // no checksum published: accept the download as it is
    }
  }

  private static MessageDigest sha1() {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The local repository: system property {@code maven.repo.local}, else {@code localRepository}
   * from {@code ~/.m2/settings.xml}, else {@code ~/.m2/repository}.
   */
  static Path defaultLocalRepository() {
    String property = System.getProperty("maven.repo.local");
    if (property != null && !property.isBlank()) {
      return Paths.get(property.trim());
    }
    Path m2 = Paths.get(System.getProperty("user.home"), ".m2");
    String fromSettings = localRepositoryFromSettings(m2.resolve("settings.xml"));
    if (fromSettings != null) {
      return Paths.get(fromSettings);
    }
    return m2.resolve("repository");
  }

  /** The remote repository: system property {@value #REMOTE_REPOSITORY_PROPERTY} or Central. */
  static URI defaultRemoteRepository() {
    String property = System.getProperty(REMOTE_REPOSITORY_PROPERTY);
    return URI.create(property == null || property.isBlank() ? MAVEN_CENTRAL : property.trim());
  }

  static String localRepositoryFromSettings(Path settings) {
    if (!Files.isRegularFile(settings)) {
      return null;
    }
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setNamespaceAware(true);
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setExpandEntityReferences(false);
      Document document = factory.newDocumentBuilder().parse(settings.toFile());
      NodeList nodes = document.getElementsByTagNameNS("*", "localRepository");
      if (nodes.getLength() == 0) {
        return null;
      }
      String value = nodes.item(0).getTextContent().trim();
      if (value.isEmpty()) {
        return null;
      }
      value = value.replace("${user.home}", System.getProperty("user.home"));
      var env = java.util.regex.Pattern.compile("\\$\\{env\\.([A-Za-z0-9_]+)}").matcher(value);
      StringBuilder expanded = new StringBuilder();
      while (env.find()) {
        String replacement = System.getenv(env.group(1));
        env.appendReplacement(
            expanded,
            java.util.regex.Matcher.quoteReplacement(replacement == null ? "" : replacement));
      }
      env.appendTail(expanded);
      return expanded.toString();
    } catch (Exception e) {
      return null; // an unreadable settings file: fall back to the default location
    }
  }
}
