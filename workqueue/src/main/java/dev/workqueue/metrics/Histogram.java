package dev.workqueue.metrics;

/** A distribution of observations (seconds, for durations). Thread-safe, never blocks. */
@FunctionalInterface
public interface Histogram {
  /** A histogram that records nothing. */
  Histogram NOOP = v -> {};

  /**
   * Records one observation.
   *
   * @param value the observed value; for a duration, in seconds
   */
  void observe(double value);
}
