package dev.workqueue.controller;

import java.util.List;

/**
 * What {@link Controller#stop} achieved.
 *
 * @param completed true if every worker finished before the deadline (and, with drain on
 *     stop, the queue drained)
 * @param stillRunning the keys whose reconciles were still running at the deadline; their
 *     workers were interrupted and exit when the reconciler returns
 * @param <T> the key type
 */
public record StopResult<T>(boolean completed, List<T> stillRunning) {
  /**
   * A stop's outcome; the list is copied.
   *
   * @param completed true if every worker finished before the deadline (and, with drain on
   *     stop, the queue drained)
   * @param stillRunning the keys whose reconciles were still running at the deadline
   * @throws NullPointerException if {@code stillRunning} is or contains null
   */
  public StopResult {
    stillRunning = List.copyOf(stillRunning);
  }
}
