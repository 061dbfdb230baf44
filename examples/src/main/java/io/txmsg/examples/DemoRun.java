package io.txmsg.examples;

import java.util.List;

/**
 * What the run itself knows (not the database): timings, client retries, the ids of the poison
 * messages it sent and the conflicts, and what was still pending if the wait timed out. {@code
 * offeredRate} is the payments offered per second (0: as fast as the threads go).
 */
record DemoRun(
    int offeredRate,
    double produceSeconds,
    double wallSeconds,
    int retried,
    int failed,
    List<String> poisonIds,
    int conflictsSent,
    int checkbacksAtFaultInjector,
    List<String> pending) {}
