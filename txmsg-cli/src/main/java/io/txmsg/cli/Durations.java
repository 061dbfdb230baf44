package io.txmsg.cli;

import io.txmsg.api.LogSafe;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Durations as operators type them: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d},
 * combinations such as {@code 1h30m}, or ISO-8601 ({@code PT5M}).
 */
final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");
  private static final Pattern WHOLE = Pattern.compile("(\\d+(ms|s|m|h|d))+");

  private Durations() {}

  /**
   * @throws IllegalArgumentException for anything else, and for negative durations
   */
  static Duration parse(String text) {
    String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    if (s.startsWith("p")) {
      try {
        Duration d = Duration.parse(s.toUpperCase(Locale.ROOT));
        if (d.isNegative()) {
          throw new IllegalArgumentException("negative duration " + LogSafe.quote(text));
        }
        return d;
      } catch (DateTimeParseException e) {
        throw invalid(text);
      }
    }
    if (!WHOLE.matcher(s).matches()) {
      throw invalid(text);
    }
    Duration total = Duration.ZERO;
    Matcher m = PART.matcher(s);
    while (m.find()) {
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              });
    }
    return total;
  }

  /** Short human form: {@code 2d 3h}, {@code 5m 12s}, {@code 850ms}. */
  static String format(Duration d) {
    if (d == null) {
      return "-";
    }
    if (d.isNegative()) {
      return "-" + format(d.negated());
    }
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      return d.toMillis() + "ms";
    }
    long days = d.toDays();
    int hours = d.toHoursPart();
    int minutes = d.toMinutesPart();
    int seconds = d.toSecondsPart();
    if (days > 0) {
      return days + "d" + (hours == 0 ? "" : " " + hours + "h");
    }
    if (hours > 0) {
      return hours + "h" + (minutes == 0 ? "" : " " + minutes + "m");
    }
    if (minutes > 0) {
      return minutes + "m" + (seconds == 0 ? "" : " " + seconds + "s");
    }
    return seconds + "s";
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException(
        "invalid duration " + LogSafe.quote(text) + ": use e.g. 30s, 5m, 2h, 7d, 1h30m or PT5M");
  }

  /** picocli converter: a bad duration becomes a usage error (exit 2). */
  static final class Converter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
