package dev.workqueue.metrics;

/** A monotonically increasing count. Implementations are thread-safe and never block. */
@FunctionalInterface
public interface Counter {
  /** A counter that records nothing. */
  Counter NOOP = () -> {};

  /** Adds one. */
  void inc();
}
