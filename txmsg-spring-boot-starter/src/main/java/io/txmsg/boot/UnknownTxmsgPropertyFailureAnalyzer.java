package io.txmsg.boot;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

/**
 * A {@code txmsg.*} property that txmsg does not have (a typo, or one removed in this release)
 * fails the start ({@link TxmsgProperties} binds with {@code ignoreUnknownFields = false}); this
 * reports it naming the property, where it was set, and the closest property txmsg has. Ordered
 * before Boot's generic report of unbound properties.
 */
public class UnknownTxmsgPropertyFailureAnalyzer
    extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> implements Ordered {
  /** Properties earlier releases had, with what replaced them. */
  private static final Map<String, String> REMOVED =
      Map.of(
          "txmsg.health.parked-scan-limit",
          "removed: the health check counts PARKED dead letters per group with one grouped query,"
              + " no scan to limit");

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  protected FailureAnalysis analyze(
      Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
    List<String> lines = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (ConfigurationProperty p : cause.getUnboundProperties()) {
      String name = p.getName().toString();
      if (!name.startsWith("txmsg.")) {
        return null; // not ours: Boot's own analyzer reports it
      }
      names.add(name);
      String why = REMOVED.get(name);
      if (why == null) {
        String closest = closest(name);
        why = "not a txmsg property" + (closest == null ? "" : "; did you mean " + closest + "?");
      }
      lines.add(
          "  " + name + (p.getOrigin() == null ? "" : " (" + p.getOrigin() + ")") + ": " + why);
    }
    return new FailureAnalysis(
        "Unknown txmsg properties (txmsg refuses them rather than ignore a setting that never"
            + " applies):\n"
            + String.join("\n", lines),
        "Remove or correct "
            + String.join(", ", names)
            + ". The README's Spring Boot section lists every txmsg property; CHANGELOG.md lists"
            + " the renamed and removed ones.",
        cause);
  }

  /** The known property nearest to {@code name} (a few edits away), or null. */
  static String closest(String name) {
    String[] segments = name.split("\\.");
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String known : known()) {
      String[] k = known.split("\\.");
      if (k.length != segments.length) {
        continue;
      }
      // "groups.*.topics": compare with the group name the user wrote.
      for (int i = 0; i < k.length; i++) {
        if (k[i].equals("*")) {
          k[i] = segments[i];
        }
      }
      String candidate = String.join(".", k);
      int d = distance(name, candidate);
      if (d < bestDistance) {
        bestDistance = d;
        best = candidate;
      }
    }
    return bestDistance <= Math.max(2, name.length() / 8) ? best : null;
  }

  /** Every property txmsg has, map keys as {@code *} (e.g. txmsg.consumer.groups.*.topics). */
  static TreeSet<String> known() {
    TreeSet<String> out = new TreeSet<>();
    collect("txmsg", TxmsgProperties.class, out);
    return out;
  }

  private static void collect(String prefix, Class<?> type, TreeSet<String> out) {
    for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(type)) {
      if (d.getReadMethod() == null || d.getName().equals("class")) {
        continue;
      }
      String name = prefix + "." + kebab(d.getName());
      Class<?> t = d.getPropertyType();
      if (Map.class.isAssignableFrom(t)) {
        Class<?> value =
            ResolvableType.forMethodReturnType(d.getReadMethod()).getGeneric(1).resolve();
        if (value != null && value.getName().startsWith("io.txmsg.boot.")) {
          collect(name + ".*", value, out);
        } else {
          out.add(name + ".*");
        }
      } else if (t.getName().startsWith("io.txmsg.boot.") && !t.isEnum()) {
        collect(name, t, out);
      } else {
        out.add(name);
      }
    }
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
