package io.txmsg.cdc;

import java.lang.management.ManagementFactory;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the JMX metrics a failed Debezium engine of this relay left registered, before the next
 * engine of the same logical name starts.
 *
 * <p>Why: an engine whose task fails while starting (seen when the database link is reset during
 * the start, "cannot read the CDC schema history") leaves its schema-history MBean registered. The
 * next engine of the same name then waits for that name to be free, 12 × 5 s, before it reads the
 * log: a relay stalled for a minute after a database restart, with the reconciler's fallback
 * sending what the relay should have. The names belong to this relay alone (its logical name is
 * derived from the store id, and one relay per store holds the lease), and no engine of it runs
 * when the next one is created.
 */
final class StaleEngineMBeans {
  private static final Logger log = LoggerFactory.getLogger(CdcRelay.class);

  private StaleEngineMBeans() {}

  /**
   * Unregisters every MBean in a {@code debezium.*} domain whose {@code server} key is {@code
   * logicalName}; returns how many it removed. A failure to remove one is logged, not thrown: the
   * engine then waits as it would have without this.
   */
  static int remove(String logicalName) {
    return remove(ManagementFactory.getPlatformMBeanServer(), logicalName);
  }

  static int remove(MBeanServer server, String logicalName) {
    ObjectName pattern;
    try {
      pattern = new ObjectName("debezium.*:*");
    } catch (MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
    String quoted = ObjectName.quote(logicalName);
    int removed = 0;
    for (ObjectName name : server.queryNames(pattern, null)) {
      String owner = name.getKeyProperty("server");
      if (!logicalName.equals(owner) && !quoted.equals(owner)) {
        continue;
      }
      try {
        server.unregisterMBean(name);
        removed++;
      } catch (InstanceNotFoundException e) {
        // gone meanwhile: what this wanted
      } catch (JMException e) {
        log.warn("cdc could not remove the stale Debezium MBean {}: {}", name, e.toString());
      }
    }
    if (removed > 0) {
      log.warn(
          "cdc removed {} JMX metrics of an earlier engine of {} that did not unregister them",
          removed,
          logicalName);
    }
    return removed;
  }
}
