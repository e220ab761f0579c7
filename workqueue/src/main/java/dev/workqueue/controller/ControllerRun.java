package dev.workqueue.controller;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.clock.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** One start-to-stop span of a controller: its queue, its workers, what they are reconciling. */
final class ControllerRun<T> {
  final RateLimitingQueue<T> queue;
  final Map<Thread, T> running = new ConcurrentHashMap<>();
  final java.util.Set<Thread> threads = ConcurrentHashMap.newKeySet();
  final ReentrantLock lock = new ReentrantLock();
  final Condition allExited = lock.newCondition();
  volatile boolean stopping;
  volatile boolean forced;
  volatile boolean aborted; // the start that made this run failed part-way
  int live; // guarded by lock

  private final Clock clock;

  ControllerRun(RateLimitingQueue<T> queue, int workers, Clock clock) {
    this.queue = queue;
    this.live = workers;
    this.clock = clock;
  }

  /** Workers of this run that have not exited yet. */
  int live() {
    lock.lock();
    try {
      return live;
    } finally {
      lock.unlock();
    }
  }

  void exited() {
    lock.lock();
    try {
      if (--live == 0) {
        allExited.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  boolean awaitExit(long deadline) throws InterruptedException {
    lock.lock();
    try {
      while (live > 0) {
        if (clock.awaitUntil(lock, allExited, deadline) <= 0) {
          return live == 0;
        }
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
