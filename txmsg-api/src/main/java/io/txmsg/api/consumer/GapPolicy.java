package io.txmsg.api.consumer;

/** What happens to an event whose predecessor version has still not arrived after the wait. */
public enum GapPolicy {
  /** Park it with reason GAP; an operator replays it once the gap is understood. */
  PARK,
  /** Apply it with the monotonic rule (newer than last applied); the missing one becomes stale. */
  APPLY
}
