package dev.workqueue.controller;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.clock.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One start-to-stop span of a controller: its queue, its workers, what they are reconciling
 * (a {@link WorkerSlot} per worker).
 */
final class ControllerRun<T> {
  final RateLimitingQueue<T> queue;
  /** Worker {@code i}'s slot: its key while it reconciles one, its last reconcile's end. */
  private final WorkerSlot<T>[] slots;
  final java.util.Set<Thread> threads = ConcurrentHashMap.newKeySet();
  final ReentrantLock lock = new ReentrantLock();
  final Condition allExited = lock.newCondition();
  volatile boolean stopping;
  volatile boolean forced;
  volatile boolean aborted; // the start that made this run failed part-way
  int live; // guarded by lock

  private final Clock clock;

  /**
   * With {@code deferEventsDuringBackoff}: the keys whose adds are held, because a reconcile of
   * theirs is running or asked for back-off; null when the option is off. Per run: a restart
   * drops the old queue's waiting retries, so it must drop the holds too.
   */
  private final ConcurrentHashMap<T, Hold> holds;

  /** A key's hold: reconciling or backing off, and whether an add was held meanwhile. */
  private enum Hold { IN_FLIGHT, IN_FLIGHT_ADDED, BACKING_OFF, BACKING_OFF_ADDED }

  /**
   * @param never the end time of a worker that has reconciled nothing
   */
  @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic class
  ControllerRun(RateLimitingQueue<T> queue, int workers, Clock clock, boolean holdAdds,
      long never) {
    this.queue = queue;
    this.live = workers;
    this.clock = clock;
    this.holds = holdAdds ? new ConcurrentHashMap<>() : null;
    this.slots = new WorkerSlot[workers];
    for (int i = 0; i < workers; i++) {
      slots[i] = new WorkerSlot<>(never);
    }
  }

  /** Worker {@code i}'s slot, which only that worker writes. */
  WorkerSlot<T> slot(int i) {
    return slots[i];
  }

  /** The keys being reconciled now, in worker order: a snapshot. */
  List<T> running() {
    List<T> keys = new ArrayList<>();
    for (WorkerSlot<T> s : slots) {
      T key = s.key();
      if (key != null) {
        keys.add(key);
      }
    }
    return keys;
  }

  /**
   * Keys a worker of this run sent back to wait while a worker of an earlier run still
   * reconciled them; a stop keeps them for the next start, as the queue's waiting room is
   * dropped.
   */
  final java.util.Set<T> deferred = ConcurrentHashMap.newKeySet();

  /** Whether a worker of this run is reconciling {@code key} now: a volatile snapshot. */
  boolean isReconciling(T key) {
    for (WorkerSlot<T> s : slots) {
      if (key.equals(s.keyVolatile())) {
        return true;
      }
    }
    return false;
  }

  /** How many workers are reconciling now: a snapshot. */
  int busyWorkers() {
    int busy = 0;
    for (WorkerSlot<T> s : slots) {
      if (s.key() != null) {
        busy++;
      }
    }
    return busy;
  }

  /** The key {@code thread}'s worker is reconciling, or null. */
  T runningOn(Thread thread) {
    for (WorkerSlot<T> s : slots) {
      if (s.thread == thread) {
        return s.key();
      }
    }
    return null;
  }

  /**
   * The latest end of a reconcile of this run on the clock, or {@code never} (overflow-safe:
   * readings are compared by their difference).
   */
  long lastEnd(long never) {
    long latest = never;
    for (WorkerSlot<T> s : slots) {
      latest = later(latest, s.lastEnd(), never);
    }
    return latest;
  }

  /** The later of two end times, either of which may be {@code never}. */
  static long later(long a, long b, long never) {
    if (a == never) {
      return b;
    }
    return b != never && b - a > 0 ? b : a;
  }

  /** A worker is about to reconcile {@code key}: adds of it are held until it settles. */
  void reconciling(T key) {
    if (holds != null) {
      holds.put(key, Hold.IN_FLIGHT);
    }
  }

  /**
   * Whether an add of {@code key} is held: true if its reconcile is running (the add is
   * remembered, and made or covered when the reconcile {@link #settled settles}) or its back-off
   * retry is waiting (which covers the add). Never once the run is stopping: a stop discards
   * the waiting retries, so an add then takes the way of any add during a stop.
   */
  boolean holdAdd(T key) {
    if (holds == null || stopping) {
      return false;
    }
    boolean[] held = {false};
    holds.computeIfPresent(key, (k, h) -> {
      held[0] = true;
      return h == Hold.BACKING_OFF || h == Hold.BACKING_OFF_ADDED ? Hold.BACKING_OFF_ADDED
          : Hold.IN_FLIGHT_ADDED;
    });
    return held[0];
  }

  /**
   * At a stop, before the queue shuts down: the keys whose adds are held by a waiting retry,
   * which the stop is about to discard. Their holds are dropped; the caller adds them as the
   * adds would have been made without the option.
   */
  java.util.List<T> takeHeldAdds() {
    java.util.List<T> keys = new java.util.ArrayList<>();
    if (holds != null) {
      holds.forEach((k, h) -> {
        if (h == Hold.BACKING_OFF_ADDED && holds.remove(k, h)) {
          keys.add(k);
        }
      });
    }
    return keys;
  }

  /**
   * The reconcile of {@code key} has its outcome: with back-off the key stays held (its retry
   * covers any add made meanwhile); otherwise it is released, and the result says whether an
   * add was held during the reconcile and must be made now.
   */
  boolean settled(T key, boolean backingOff) {
    if (holds == null) {
      return false;
    }
    if (backingOff) {
      holds.compute(key, (k, h) -> h == Hold.IN_FLIGHT_ADDED ? Hold.BACKING_OFF_ADDED
          : Hold.BACKING_OFF);
      return false;
    }
    return holds.remove(key) == Hold.IN_FLIGHT_ADDED;
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

  /** A worker exited; returns whether it was the last. */
  boolean exited() {
    lock.lock();
    try {
      if (--live == 0) {
        allExited.signalAll();
        return true;
      }
      return false;
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
