package dev.workqueue.controller;

import java.time.Duration;
import java.util.Optional;

/**
 * A snapshot of a {@link Controller}, for health and readiness checks: whether it runs, its
 * workers, its queue and its last reconcile. The parts are read one after another, not
 * atomically together. A key that falls due while they are read may be counted in both
 * {@code waiting} and {@code queued} (not in neither); a key that moves between the queue and
 * a worker meanwhile may be missed by all three counts.
 *
 * @param running true between {@code start} and {@code stop}
 * @param configuredWorkers the workers a run starts
 * @param liveWorkers the workers of the current run that have not exited; fewer than configured
 *     while running means a worker died (a {@code VirtualMachineError} ends the worker it is
 *     thrown in)
 * @param busyWorkers the workers reconciling now
 * @param queued the keys ready to be handed out
 * @param waiting the keys waiting out a delay or a back-off, not yet ready
 * @param sinceLastReconcile how long ago, on the controller's clock, the last reconcile ended;
 *     empty if none has
 */
public record ControllerStatus(boolean running, int configuredWorkers, int liveWorkers,
    int busyWorkers, int queued, int waiting, Optional<Duration> sinceLastReconcile) {

  /**
   * A snapshot.
   *
   * @param running true between {@code start} and {@code stop}
   * @param configuredWorkers the workers a run starts
   * @param liveWorkers the workers of the current run that have not exited
   * @param busyWorkers the workers reconciling now
   * @param queued the keys ready to be handed out
   * @param waiting the keys waiting out a delay or a back-off
   * @param sinceLastReconcile how long ago the last reconcile ended, or empty
   * @throws NullPointerException if {@code sinceLastReconcile} is null
   */
  public ControllerStatus {
    java.util.Objects.requireNonNull(sinceLastReconcile, "sinceLastReconcile must not be null");
  }

  /**
   * Whether every configured worker of a running controller is alive: false once a worker
   * died, until the controller is restarted. True when not running.
   *
   * @return false if a running controller lost a worker
   */
  public boolean workersAlive() {
    return !running || liveWorkers == configuredWorkers;
  }
}
