package io.txmsg.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a command prints goes through here: rows become ordered maps with the database's
 * snake_case column names, printed either as an aligned table / key-value block or as JSON.
 * Payloads are reduced to their size unless the operator asked for them: they may hold personal
 * data, and a terminal or ticket is no place for it by default.
 */
final class Output {
  static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT);

  private static final int MAX_CELL = 60;

  private final PrintWriter out;
  private final boolean json;

  Output(PrintWriter out, boolean json) {
    this.out = out;
    this.json = json;
  }

  boolean json() {
    return json;
  }

  PrintWriter writer() {
    return out;
  }

  /** A row object (JournalRow, DeadLetterRow, ...) as an ordered map, without its payload. */
  static Map<String, Object> map(Object row) {
    Map<String, Object> m =
        JSON.convertValue(row, new TypeReference<LinkedHashMap<String, Object>>() {});
    m.remove("payload");
    return m;
  }

  /** The map of a row plus its payload: size only, or the bytes when {@code show}. */
  static Map<String, Object> map(Object row, byte[] payload, boolean show) {
    Map<String, Object> m = map(row);
    m.put("payload_size", payload == null ? null : payload.length);
    if (show && payload != null) {
      String text = utf8(payload);
      if (text != null) {
        m.put("payload_utf8", text);
      } else {
        m.put("payload_base64", Base64.getEncoder().encodeToString(payload));
      }
    }
    return m;
  }

  void json(Object value) {
    try {
      out.println(JSON.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** An aligned table of the given columns (map keys); headers are the keys in upper case. */
  void table(List<Map<String, Object>> rows, List<String> columns) {
    List<List<String>> cells = new ArrayList<>();
    for (Map<String, Object> r : rows) {
      List<String> line = new ArrayList<>();
      for (String c : columns) {
        line.add(cell(r.get(c), true));
      }
      cells.add(line);
    }
    List<String> headers = columns.stream().map(c -> c.toUpperCase(java.util.Locale.ROOT)).toList();
    printAligned(headers, cells);
  }

  /** Prints pre-rendered rows under headers, columns padded to their widest cell. */
  void printAligned(List<String> headers, List<List<String>> rows) {
    int[] width = new int[headers.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = headers.get(i).length();
    }
    for (List<String> r : rows) {
      for (int i = 0; i < width.length; i++) {
        width[i] = Math.max(width[i], r.get(i).length());
      }
    }
    printLine(headers, width);
    for (List<String> r : rows) {
      printLine(r, width);
    }
  }

  /** One record as "key value" lines, keys aligned. */
  void record(Map<String, Object> row) {
    int w = row.keySet().stream().mapToInt(String::length).max().orElse(0);
    for (Map.Entry<String, Object> e : row.entrySet()) {
      out.println(pad(e.getKey(), w) + "  " + cell(e.getValue(), false));
    }
  }

  /** A value for a table cell or record line: never multi-line; long cells cut in tables. */
  static String cell(Object v, boolean cut) {
    if (v == null) {
      return "-";
    }
    String s = v.toString().replace("\r", " ").replace("\n", " ").replace("\t", " ");
    return cut && s.length() > MAX_CELL ? s.substring(0, MAX_CELL - 3) + "..." : s;
  }

  private void printLine(List<String> cells, int[] width) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        b.append("  ");
      }
      b.append(i == cells.size() - 1 ? cells.get(i) : pad(cells.get(i), width[i]));
    }
    out.println(b);
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s : s + " ".repeat(width - s.length());
  }

  /** The payload as text when it is valid UTF-8 without control characters, else null. */
  private static String utf8(byte[] bytes) {
    try {
      String s =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t') {
          return null;
        }
      }
      return s;
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
