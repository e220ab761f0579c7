package dev.workqueue.ratelimit;

/** A limiter that keeps state per item; lets tests and diagnostics see how much. */
interface TracksItems {
  /**
   * The number of items whose state is held now. For a bounded limiter this first runs the
   * pending evictions, so the figure respects the configured bound.
   */
  long trackedItems();
}
