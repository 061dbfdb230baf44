package io.txmsg.testkit.rocketmq;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The classpath of the forked cluster JVM: the txmsg-testkit-cluster jar (or its classes directory
 * inside a build) plus every jar of the listing that jar carries, resolved against the local Maven
 * repository.
 */
final class ClusterClasspath {
  static final String LISTING = "META-INF/txmsg-testkit/cluster.classpath";
  static final String REPOSITORY_PLACEHOLDER = "${M2_REPO}";

  private ClusterClasspath() {}

  static List<Path> resolve(LocalRepositoryResolver resolver) throws IOException {
    ClassLoader loader = ClusterClasspath.class.getClassLoader();
    URL listing = loader == null ? null : loader.getResource(LISTING);
    if (listing == null) {
      throw new EmbeddedRocketMQException(
          "No "
              + LISTING
              + " on the classpath: add io.txmsg:txmsg-testkit-cluster (it comes with"
              + " io.txmsg:txmsg-testkit)");
    }
    String text;
    try (InputStream in = listing.openStream()) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<Path> classpath = new ArrayList<>();
    classpath.add(origin(listing));
    for (String entry : text.split("[|\\r\\n]+")) {
      String trimmed = entry.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      if (trimmed.startsWith(REPOSITORY_PLACEHOLDER)) {
        classpath.add(resolver.resolve(trimmed.substring(REPOSITORY_PLACEHOLDER.length())));
      } else {
        Path path = Paths.get(trimmed);
        if (!Files.exists(path)) {
          throw new EmbeddedRocketMQException("cluster classpath entry missing: " + trimmed);
        }
        classpath.add(path);
      }
    }
    return classpath;
  }

  /** The jar or classes directory the listing was loaded from. */
  static Path origin(URL listing) {
    try {
      if ("jar".equals(listing.getProtocol())) {
        String spec = listing.getPath(); // file:/.../x.jar!/META-INF/...
        int bang = spec.indexOf("!/");
        return Paths.get(new URL(spec.substring(0, bang)).toURI());
      }
      if ("file".equals(listing.getProtocol())) {
        Path file = Paths.get(listing.toURI());
        return file.getParent().getParent().getParent();
      }
    } catch (IOException | URISyntaxException e) {
      throw new EmbeddedRocketMQException("cannot locate txmsg-testkit-cluster from " + listing, e);
    }
    throw new EmbeddedRocketMQException("cannot locate txmsg-testkit-cluster from " + listing);
  }
}
