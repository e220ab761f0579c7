package dev.workqueue.scheduling;

/** Where a rejected item goes after an event or a failure, from weakest to strongest. */
enum RequeueStrategy {
  /** Stay in (or go to) the pool. */
  SKIP,
  /** backoffQ if still backing off, else activeQ. */
  AFTER_BACKOFF,
  /** activeQ at once (through the gates). */
  IMMEDIATELY;

  RequeueStrategy strongest(RequeueStrategy other) {
    return other.ordinal() > ordinal() ? other : this;
  }
}
