package dev.workqueue.metrics;

/**
 * A value that goes up and down. The toolkit always sets it from the state it measures
 * (never increments and decrements), so a gauge cannot drift or go negative. Implementations
 * are thread-safe and never block.
 */
@FunctionalInterface
public interface Gauge {
  /** A gauge that records nothing. */
  Gauge NOOP = v -> {};

  /**
   * Sets the current value.
   *
   * @param value the value now, in the metric's unit: a count, or seconds for a duration
   */
  void set(double value);
}
