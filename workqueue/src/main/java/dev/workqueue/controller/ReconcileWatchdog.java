package dev.workqueue.controller;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Interrupts a worker whose reconcile outlives its timeout: scheduled on the controller's clock
 * when the reconcile starts; {@link #finish}, called when it ends, says whether it fired.
 */
final class ReconcileWatchdog implements Runnable {
  private final Thread worker;
  private final ReentrantLock lock = new ReentrantLock();
  private boolean finished;
  private boolean fired;

  ReconcileWatchdog(Thread worker) {
    this.worker = worker;
  }

  @Override
  public void run() {
    lock.lock();
    try {
      if (!finished) {
        fired = true;
        worker.interrupt(); // under the lock: delivered before finish() can report it
      }
    } finally {
      lock.unlock();
    }
  }

  boolean finish() {
    lock.lock();
    try {
      finished = true;
      return fired;
    } finally {
      lock.unlock();
    }
  }
}
