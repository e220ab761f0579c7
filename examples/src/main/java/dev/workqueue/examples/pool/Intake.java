package dev.workqueue.examples.pool;

import dev.workqueue.DelayingQueue;
import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Requests on their way to the scheduler's thread: new ones from {@code enqueue} (the seed's
 * {@code reqCh}) and conflicted ones from claim threads, plus the bound on what the scheduler
 * holds and the closed flag.
 *
 * <p>The bound counts requests accepted and not ended, wherever they are; a request's slot is
 * freed by a callback on its future, however it ends (claimed, failed, withdrawn). Adding and
 * closing exclude each other through a read-write lock (adders share the read side), so that
 * once {@link #close} returns nothing more is added and {@link #takeAll} sees every request
 * left behind.
 *
 * <p>Thread-safe.
 */
final class Intake {
  private final int capacity;
  private final Clock clock;
  private final DelayingQueue<Signal> signals;
  private final ConcurrentLinkedQueue<ClaimRequest> inbox = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<ClaimRequest> requeued = new ConcurrentLinkedQueue<>();
  private final ReentrantReadWriteLock closing = new ReentrantReadWriteLock();
  private volatile boolean closed;
  private final AtomicInteger outstanding = new AtomicInteger();
  private final LongAdder enqueued = new LongAdder();
  private final LongAdder rejected = new LongAdder();

  Intake(int capacity, Clock clock, DelayingQueue<Signal> signals) {
    this.capacity = capacity;
    this.clock = clock;
    this.signals = signals;
  }

  /** The body of {@link PoolScheduler#enqueue}, after the argument checks. */
  boolean offer(ClaimRequest request) {
    closing.readLock().lock();
    try {
      if (closed || !takeSlot()) {
        request.unmarkEnqueued();
        rejected.increment();
        return false;
      }
      Duration timeout = request.timeout();
      if (timeout != null) {
        request.deadlineNanos = clock.nanoTime() + PoolScheduler.saturatedNanos(timeout);
      }
      request.result().whenComplete((claim, error) -> {
        outstanding.decrementAndGet();
        if (timeout != null) {
          signals.cancel(new Signal.Expire(request));
        }
      });
      if (timeout != null) {
        signals.addAfter(new Signal.Expire(request), timeout);
      }
      inbox.add(request);
    } finally {
      closing.readLock().unlock();
    }
    enqueued.increment();
    signals.add(Signal.Wake.REQUEST);
    return true;
  }

  /**
   * Puts a conflicted request back for the head of the line.
   *
   * @return false if closed: the caller fails the request
   */
  boolean requeue(ClaimRequest request) {
    closing.readLock().lock();
    try {
      if (closed) {
        return false;
      }
      requeued.add(request);
    } finally {
      closing.readLock().unlock();
    }
    signals.add(Signal.Wake.CONFLICT);
    return true;
  }

  /** Moves requests to the scheduler's line: requeued ones to its head, in order; new ones to its tail. */
  void drainTo(ArrayDeque<ClaimRequest> line) {
    if (!requeued.isEmpty()) {
      List<ClaimRequest> back = new ArrayList<>();
      for (ClaimRequest r; (r = requeued.poll()) != null; ) {
        back.add(r);
      }
      for (int i = back.size() - 1; i >= 0; i--) {
        line.addFirst(back.get(i));
      }
    }
    for (ClaimRequest r; (r = inbox.poll()) != null; ) {
      line.addLast(r);
    }
  }

  /** From now on nothing is added; waits for adders under way. */
  void close() {
    closing.writeLock().lock();
    try {
      closed = true;
    } finally {
      closing.writeLock().unlock();
    }
  }

  boolean isClosed() {
    return closed;
  }

  /** Everything not yet taken in (after {@link #close}: everything there will ever be). */
  List<ClaimRequest> takeAll() {
    List<ClaimRequest> all = new ArrayList<>();
    for (ClaimRequest r; (r = inbox.poll()) != null; ) {
      all.add(r);
    }
    for (ClaimRequest r; (r = requeued.poll()) != null; ) {
      all.add(r);
    }
    return all;
  }

  int outstanding() {
    return outstanding.get();
  }

  long enqueued() {
    return enqueued.sum();
  }

  long rejected() {
    return rejected.sum();
  }

  private boolean takeSlot() {
    while (true) {
      int n = outstanding.get();
      if (n >= capacity) {
        return false;
      }
      if (outstanding.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }
}
