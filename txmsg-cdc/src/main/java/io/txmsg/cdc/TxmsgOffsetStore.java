package io.txmsg.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;

/**
 * Debezium's offsets in the txmsg database ({@code ${prefix}cdc_offset}, one row per store),
 * through Kafka Connect's offset-store SPI. Debezium instantiates it by class name; the relay's run
 * is found through {@link RelayRun#CONFIG_KEY} in the engine configuration.
 *
 * <p>The engine stores an offset only for records the relay marked processed, i.e. sent with
 * SEND_OK (or settled otherwise). Before each write, the run's SENT recorder writes what is
 * pending, so a stored offset never lies past a sent row that is not SENT. The write is fenced by
 * the lease generation: a relay that lost the lease stores nothing, and its run stops.
 */
public final class TxmsgOffsetStore extends MemoryOffsetBackingStore {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RelayRun run;

  /** Instantiated by Debezium's engine. */
  public TxmsgOffsetStore() {}

  @Override
  public void configure(WorkerConfig config) {
    super.configure(config);
    run = RelayRun.find(config.originalsStrings().get(RelayRun.CONFIG_KEY));
  }

  @Override
  public void start() {
    super.start();
    try {
      data = decode(run.store().offsets(run.fence().storeId()));
    } catch (Exception e) {
      throw new ConnectException("cannot read the CDC relay offsets: " + e.getMessage(), e);
    }
  }

  @Override
  protected void save() {
    if (run.halted()) {
      throw new ConnectException("the relay was halted: offsets not stored");
    }
    try {
      run.recorder().flush();
      if (!run.store().writeOffsets(run.fence(), encode(data))) {
        run.lost("offset write fenced");
        throw new ConnectException(
            "the relay lease of store " + run.fence().storeId() + " was taken over");
      }
      run.positionStored();
    } catch (ConnectException e) {
      throw e;
    } catch (LeaseLostException e) {
      throw new ConnectException(e.getMessage(), e);
    } catch (Exception e) {
      throw new ConnectException("cannot store the CDC relay offsets: " + e.getMessage(), e);
    }
  }

  @Override
  public Set<Map<String, Object>> connectorPartitions(String connectorName) {
    return Set.of(); // only Kafka Connect's REST API asks, and the embedded engine has none
  }

  static String encode(Map<ByteBuffer, ByteBuffer> data) {
    Map<String, String> out = new LinkedHashMap<>();
    data.forEach((k, v) -> out.put(text(k), v == null ? null : text(v)));
    try {
      return JSON.writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static Map<ByteBuffer, ByteBuffer> decode(String json) throws JsonProcessingException {
    Map<ByteBuffer, ByteBuffer> out = new java.util.HashMap<>();
    if (json == null) {
      return out;
    }
    Map<?, ?> stored = JSON.readValue(json, Map.class);
    stored.forEach(
        (k, v) ->
            out.put(
                ByteBuffer.wrap(String.valueOf(k).getBytes(StandardCharsets.UTF_8)),
                v == null ? null : ByteBuffer.wrap(((String) v).getBytes(StandardCharsets.UTF_8))));
    return out;
  }

  /** Connect's JSON converter writes offsets as UTF-8 JSON text. */
  private static String text(ByteBuffer b) {
    ByteBuffer d = b.duplicate();
    byte[] bytes = new byte[d.remaining()];
    d.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
