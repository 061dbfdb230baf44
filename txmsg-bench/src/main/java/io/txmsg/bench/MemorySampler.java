package io.txmsg.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Samples this JVM's heap and RSS, and another process's RSS, every 200 ms. */
final class MemorySampler extends Thread {
  final List<Double> heap = Collections.synchronizedList(new ArrayList<>());
  final List<Double> rss = Collections.synchronizedList(new ArrayList<>());
  final List<Double> other = Collections.synchronizedList(new ArrayList<>());
  private final long otherPid;
  private volatile boolean stop;

  MemorySampler(long otherPid) {
    this.otherPid = otherPid;
    setDaemon(true);
  }

  @Override
  public void run() {
    while (!stop) {
      heap.add(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0);
      rss.add(BenchMain.rssMb("self"));
      other.add(BenchMain.rssMb(Long.toString(otherPid)));
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  void halt() throws InterruptedException {
    stop = true;
    join();
  }
}
