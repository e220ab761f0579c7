package dev.workqueue.clock;

/** A scheduled wake-up that can be called off. */
@FunctionalInterface
public interface Cancellable {
  /**
   * Calls the wake-up off if it has not run yet.
   *
   * @return true if this call prevented it from running
   */
  boolean cancel();
}
