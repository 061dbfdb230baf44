package io.txmsg.examples;

import java.util.List;

/**
 * What the run itself knows (not the database): timings, client retries, the ids of the poison
 * messages it sent and the conflicts, and what was still pending if the wait timed out.
 */
record DemoRun(
    double produceSeconds,
    double wallSeconds,
    int retried,
    int failed,
    List<String> poisonIds,
    int conflictsSent,
    int checkbacksAtFaultInjector,
    List<String> pending) {}
