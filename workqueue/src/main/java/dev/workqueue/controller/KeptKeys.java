package dev.workqueue.controller;

import dev.workqueue.PriorityItem;
import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.RateLimitingQueue;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The keys kept while stopped: an add that meets a stopped controller (its queue shut down) is
 * kept here, and the next start queues it on the fresh queue it makes, so no add is lost. The
 * current queue lives here too, since a start swaps it under the same lock that keeps a key:
 * an add then lands either in the old queue's keep or in the new queue, never in neither. A key
 * is kept with the highest priority it was added with, and queued at it on a priority queue, so
 * that keys a stopped controller is given at a low priority (a replay of a cache, say) do not
 * line up with real changes at the next start.
 *
 * @param <T> the key type
 */
final class KeptKeys<T> {
  private final Supplier<? extends RateLimitingQueue<T>> queueFactory;
  /** Keys added while stopped, with their highest priority, queued at the next start. Lock. */
  private final Map<T, Integer> kept = new LinkedHashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  /** The queue of a start that failed part-way; the next start takes its keys. Lock. */
  private RateLimitingQueue<T> abortedQueue;
  /** Written under lock, by a start; read without it by adds, stop and status. */
  private volatile RateLimitingQueue<T> queue;

  /** Makes the first queue now, so that keys added before the first start wait in it. */
  KeptKeys(Supplier<? extends RateLimitingQueue<T>> queueFactory) {
    this.queueFactory = queueFactory;
    this.queue = queueFactory.get();
  }

  /** The current queue: live while running, shut down while stopped. */
  RateLimitingQueue<T> queue() {
    return queue;
  }

  /**
   * Adds to the current queue; a key that meets a stopped controller (its queue shut down) is
   * kept for the next start instead. An add racing a stop may be both queued and kept: a
   * reconcile too many, never one too few.
   */
  void enqueue(T key, Consumer<RateLimitingQueue<T>> add) {
    enqueue(key, 0, add);
  }

  /** {@link #enqueue(Object, Consumer)} of a key added at {@code priority}. */
  void enqueue(T key, int priority, Consumer<RateLimitingQueue<T>> add) {
    RateLimitingQueue<T> q = queue;
    add.accept(q);
    if (q.isShuttingDown()) {
      keepUntilStart(key, q, priority);
    }
  }

  /** {@code q.add(key)}; if {@code q} is shut down, the key is kept for the next start. */
  void addOrKeep(RateLimitingQueue<T> q, T key) {
    q.add(key);
    if (q.isShuttingDown()) {
      keepUntilStart(key, q);
    }
  }

  /**
   * Keeps {@code key}, which met the shut-down queue {@code seen}, for the next start; or, if a
   * start came in between, adds it to that start's live queue.
   */
  void keepUntilStart(T key, RateLimitingQueue<T> seen) {
    keepUntilStart(key, seen, 0);
  }

  /** {@link #keepUntilStart(Object, RateLimitingQueue)} at {@code priority}. */
  void keepUntilStart(T key, RateLimitingQueue<T> seen, int priority) {
    while (true) {
      RateLimitingQueue<T> now;
      lock.lock();
      try {
        now = queue;
        if (now == seen || now.isShuttingDown()) {
          kept.merge(key, priority, Math::max); // start queues it
          return;
        }
      } finally {
        lock.unlock();
      }
      add(now, key, priority); // a start came in between: its queue is live, unless stopped again
      if (!now.isShuttingDown()) {
        return;
      }
      seen = now;
    }
  }

  /** Keeps {@code keys} for the next start. */
  void keepAll(Collection<T> keys) {
    lock.lock();
    try {
      for (T key : keys) {
        kept.merge(key, 0, Math::max);
      }
    } finally {
      lock.unlock();
    }
  }

  /** A start failed part-way on {@code q}: the next start takes the keys left in it. */
  void aborted(RateLimitingQueue<T> q) {
    lock.lock();
    try {
      abortedQueue = q;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The queue of a start: the current one if it is live (the first start); after a stop a
   * fresh one, with the keys kept meanwhile (and those a failed start left) queued on it.
   * Under the lifecycle lock.
   */
  RateLimitingQueue<T> queueForStart() {
    RateLimitingQueue<T> old = queue;
    if (!old.isShuttingDown()) {
      return old;
    }
    RateLimitingQueue<T> fresh = queueFactory.get(); // a restart: fresh queue
    lock.lock();
    try {
      if (old == abortedQueue) {
        takeAll(old); // the keys a failed start left in its queue
        abortedQueue = null;
      }
      queue = fresh;
      kept.forEach((key, priority) -> add(fresh, key, priority)); // added while stopped
      kept.clear();
    } finally {
      lock.unlock();
    }
    return fresh;
  }

  /** Moves every key still queued in a shut-down {@code q} to {@link #kept}. Under lock. */
  private void takeAll(RateLimitingQueue<T> q) {
    try {
      if (q instanceof PriorityWorkQueue<T> pq) {
        for (Optional<PriorityItem<T>> k = pq.pollWithPriority(Duration.ZERO); k.isPresent();
            k = pq.pollWithPriority(Duration.ZERO)) {
          kept.merge(k.get().item(), k.get().priority(), Math::max);
          q.done(k.get().item());
        }
        return;
      }
      for (Optional<T> k = q.poll(Duration.ZERO); k.isPresent(); k = q.poll(Duration.ZERO)) {
        kept.merge(k.get(), 0, Math::max);
        q.done(k.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // what is left stays: the interrupt comes first
    }
  }

  /** Adds {@code key} to {@code q} at {@code priority}, if {@code q} has priorities. */
  private static <T> void add(RateLimitingQueue<T> q, T key, int priority) {
    if (priority != 0 && q instanceof PriorityWorkQueue<T> pq) {
      pq.add(key, AddOptions.ofPriority(priority));
    } else {
      q.add(key);
    }
  }
}
