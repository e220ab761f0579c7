package dev.workqueue.benchmarks;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The baseline the toolkit must beat: client-go's {@code Type} queue ({@code queue.go}) written
 * the obvious way in Java. One {@link ReentrantLock}, one {@link Condition}, a FIFO
 * {@link ArrayDeque} and two {@link HashSet}s, {@code dirty} and {@code processing}:
 *
 * <ul>
 *   <li>{@code add}: ignore if dirty; mark dirty; unless processing, append to the FIFO and
 *       signal one waiter (every add signals, as client-go's {@code cond.Signal()} does).
 *   <li>{@code get}: wait while the FIFO is empty; pop the head; move it dirty → processing.
 *   <li>{@code done}: remove from processing; if it became dirty meanwhile, append it again and
 *       signal.
 * </ul>
 *
 * <p>Deliberately unoptimised (two hash operations per step, a signal per add): it is the
 * design PERF.md measures the toolkit against, not a queue to use. Thread-safe. No shutdown
 * beyond what the benchmarks need; {@link #tryGet} exists only so a benchmark thread can stop
 * without blocking at the end of an iteration.
 *
 * @param <T> the item type
 */
public final class NaiveWorkQueue<T> {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition cond = lock.newCondition();
  private final ArrayDeque<T> queue = new ArrayDeque<>();
  private final HashSet<T> dirty = new HashSet<>();
  private final HashSet<T> processing = new HashSet<>();

  /** Marks {@code item} as needing processing (client-go {@code Add}). */
  public void add(T item) {
    lock.lock();
    try {
      if (dirty.contains(item)) {
        return;
      }
      dirty.add(item);
      if (processing.contains(item)) {
        return;
      }
      queue.addLast(item);
      cond.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Blocks until an item is queued, then hands it out (client-go {@code Get}). */
  public T get() throws InterruptedException {
    lock.lock();
    try {
      while (queue.isEmpty()) {
        cond.await();
      }
      return takeLocked();
    } finally {
      lock.unlock();
    }
  }

  /** Like {@link #get} but never waits: null if nothing is queued. */
  public T tryGet() {
    lock.lock();
    try {
      return queue.isEmpty() ? null : takeLocked();
    } finally {
      lock.unlock();
    }
  }

  private T takeLocked() {
    T item = queue.pollFirst();
    processing.add(item);
    dirty.remove(item);
    return item;
  }

  /** Marks {@code item} as processed, re-queueing it if it was added meanwhile. */
  public void done(T item) {
    lock.lock();
    try {
      processing.remove(item);
      if (dirty.contains(item)) {
        queue.addLast(item);
        cond.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** The number of queued items (not those processing). */
  public int size() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }
}
