package io.txmsg.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How much of the machine's CPU went to processes outside the benchmark while the sections ran
 * (Linux only): busy time from /proc/stat minus the CPU time of the benchmark's own JVMs (this one,
 * the broker, the rocketmq-spring child) from /proc/&lt;pid&gt;/stat. A shared machine makes
 * absolute figures move; this says by how much it was shared.
 */
final class MachineLoad {
  /** USER_HZ: the unit of both files on Linux. */
  private static final double TICKS_PER_SECOND = 100.0;

  private final long[] pids;
  private long busy0;
  private long ours0;
  private long t0;

  MachineLoad(long... pids) {
    this.pids = pids;
  }

  void start() {
    busy0 = machineBusy();
    ours0 = ours();
    t0 = System.nanoTime();
  }

  /** One sentence for the report; "?" parts when /proc cannot be read. */
  String describe() {
    long busy = machineBusy() - busy0;
    long ours = ours() - ours0;
    double wall = (System.nanoTime() - t0) / 1e9;
    if (busy0 < 0 || ours0 < 0 || busy < 0 || ours < 0) {
      return "CPU use of other processes: unknown (no /proc).";
    }
    int cores = Runtime.getRuntime().availableProcessors();
    double other = Math.max(0, busy - ours) / TICKS_PER_SECOND;
    return String.format(
        Locale.ROOT,
        "CPU while the sections ran (%.0f s of wall time, %d cores = %.0f core-seconds): the"
            + " machine was busy %.0f core-seconds, of which the benchmark's JVMs (this one, the"
            + " broker, the rocketmq-spring child) used %.0f and **other processes %.0f (%.0f %%"
            + " of the machine)**.",
        wall,
        cores,
        wall * cores,
        busy / TICKS_PER_SECOND,
        ours / TICKS_PER_SECOND,
        other,
        100 * other / (wall * cores));
  }

  /** Busy ticks of all CPUs: user + nice + system + irq + softirq + steal. */
  private static long machineBusy() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      return Long.parseLong(f[1])
          + Long.parseLong(f[2])
          + Long.parseLong(f[3])
          + Long.parseLong(f[6])
          + Long.parseLong(f[7])
          + Long.parseLong(f[8]);
    } catch (Exception e) {
      return -1;
    }
  }

  private long ours() {
    long sum = 0;
    for (long pid : pids) {
      long t = processTicks(pid);
      if (t < 0) {
        return -1;
      }
      sum += t;
    }
    return sum;
  }

  /** utime + stime of a process (its threads included). */
  private static long processTicks(long pid) {
    try {
      String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split("\\s+");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (Exception e) {
      return -1;
    }
  }
}
