package dev.workqueue;

import static dev.workqueue.Items.requireArg;
import static dev.workqueue.Items.requireItem;
import static dev.workqueue.PriorityEntry.HELD;
import static dev.workqueue.PriorityEntry.NONE;
import static dev.workqueue.PriorityEntry.READY;
import static dev.workqueue.PriorityEntry.WAITING;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.TimeMath;
import dev.workqueue.ratelimit.RateLimiter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The priority queue. One map from item to {@link PriorityEntry} holds everything the queue
 * knows about an item (client-go's dirty and processing sets, controller-runtime's
 * {@code items} map and its locked set), so an operation costs one or two hash operations
 * (a new item: a lookup and a {@code putIfAbsent}; {@code done}: a lookup, and a removal when
 * nothing is pending). A pending add is in exactly one place:
 *
 * <pre>
 *   add(after &gt; 0) ──► WAITING (DelayHeap by ready time; one clock wake-up for its head)
 *                         │ due: promoted in ready-time order
 *   add(after = 0) ──────►├──► READY (its priority's line [+ the age line]) ──get──► processing
 *                         └──► HELD  (processing: no line yet) ──done──► READY
 * </pre>
 *
 * <p><b>Order of readiness.</b> Before any item joins a line, the items whose delay has
 * ended are promoted (the check costs a clock read only while something waits), so the lines
 * hold items in the order they became ready even when the wake-up thread runs late; a
 * promoted item counts as ready since its ready time. This keeps the age line sorted, which is
 * what lets aging look only at its head.
 *
 * <p>Everything is guarded by {@link #lock}, except the add fast path: an add without delay of
 * an item that is already READY or HELD at an equal or higher priority changes nothing, and
 * reads {@link PriorityEntry#readyPriority} without the lock (the map is concurrent for that
 * reason, as in {@link DefaultWorkQueue}). An add that does take the lock reuses the entry it
 * read before, unless that entry was removed meanwhile ({@link PriorityEntry#removed}).
 */
final class DefaultPriorityWorkQueue<T> implements PriorityWorkQueue<T> {
  private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private final Clock clock;
  private final String name;
  private final QueueMetrics<T> metrics;
  private final PriorityDepthMetric depthByPriority; // null: not recorded
  private final RateLimiter<? super T> limiter;
  private final long agingNanos; // 0: off

  private final ConcurrentHashMap<T, PriorityEntry<T>> entries = new ConcurrentHashMap<>();
  private final ReadyLevels<T> ready;
  private final DelayHeap<PriorityEntry<T>> waiting = new DelayHeap<>();
  private final DelayWakeup wakeup;
  private int dirty; // READY + HELD
  private int waiters;
  private volatile boolean shuttingDown; // written under the lock
  private final Drain drain;
  private boolean warnedUnpairedDone;

  DefaultPriorityWorkQueue(WorkQueueBuilder<T> b, RateLimiter<? super T> limiter) {
    this.clock = b.clock;
    this.drain = new Drain(lock, clock, entries::isEmpty, this::markShuttingDown);
    this.name = b.name;
    this.limiter = limiter;
    this.agingNanos = b.agingThresholdNanos;
    this.ready = new ReadyLevels<>(agingNanos > 0);
    this.metrics = b.newMetrics(lock);
    this.depthByPriority = b.newPriorityDepthMetric();
    this.wakeup = new DelayWakeup(clock, lock, this::onWakeupLocked);
  }

  // ---- adds ----

  @Override
  public void add(T item) {
    requireItem(item);
    PriorityEntry<T> seen = entries.get(item);
    if (seen == null || seen.readyPriority < 0) {
      addNow(item, 0, seen);
    } // else ready at priority 0 or higher: nothing to do (linearizes at the read)
  }

  @Override
  public void add(T item, AddOptions options) {
    requireItem(item);
    requireArg(options, "options");
    long after = options.after().isZero() ? 0 : TimeMath.delayNanos(options.after());
    if (options.rateLimited()) {
      if (shuttingDown) {
        return; // do not count a requeue the queue will ignore
      }
      long limited = TimeMath.delayNanos(limiter.when(item));
      addDelayed(item, options.priority(), after == 0 ? limited : Math.min(after, limited));
    } else if (after > 0) {
      addDelayed(item, options.priority(), after);
    } else {
      PriorityEntry<T> seen = entries.get(item);
      if (seen == null || seen.readyPriority < options.priority()) {
        addNow(item, options.priority(), seen);
      }
    }
  }

  @Override
  public void addAfter(T item, Duration delay) {
    requireItem(item);
    requireArg(delay, "delay");
    addDelayed(item, 0, TimeMath.delayNanos(delay));
  }

  @Override
  public void addRateLimited(T item) {
    requireItem(item);
    if (shuttingDown) {
      return;
    }
    addDelayed(item, 0, TimeMath.delayNanos(limiter.when(item)));
  }

  /** An add without delay; {@code seen} is the item's entry read without the lock, or null. */
  private void addNow(T item, int priority, PriorityEntry<T> seen) {
    lock.lock();
    try {
      if (!shuttingDown) {
        addLocked(item, priority, 0, seen);
      }
    } finally {
      lock.unlock();
    }
  }

  /** An add that asked for a delay (or a rate limit): counts a retry, even if the delay is 0. */
  private void addDelayed(T item, int priority, long delayNanos) {
    PriorityEntry<T> seen = entries.get(item);
    lock.lock();
    try {
      if (!shuttingDown) {
        metrics.retried();
        addLocked(item, priority, delayNanos, seen);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Merges an add into what the queue holds for {@code item}: see the class table.
   * {@code seen} is the item's entry as read before the lock was taken: still its entry unless
   * removed since (the map changes only under the lock), which saves a second lookup.
   */
  private void addLocked(T item, int priority, long delayNanos, PriorityEntry<T> seen) {
    PriorityEntry<T> e = seen;
    if (e == null || e.removed) {
      PriorityEntry<T> fresh = new PriorityEntry<>(item, priority);
      e = entries.putIfAbsent(item, fresh); // one map operation for a new item
      if (e == null) {
        place(fresh, delayNanos);
        return;
      }
    }
    if (e.pending == NONE) {
      e.priority = priority; // a new pending add; the processing round's priority is over
      place(e, delayNanos);
    } else if (e.pending == WAITING) {
      e.priority = Math.max(e.priority, priority);
      if (delayNanos > 0) {
        if (waiting.offerEarliest(e, TimeMath.deadline(clock.nanoTime(), delayNanos))) {
          wakeup.rearm(waiting);
        }
      } else {
        waiting.remove(e);
        wakeup.rearm(waiting);
        makeReady(e, readyNowLocked());
      }
    } else {
      raise(e, priority); // READY or HELD: already ready, so the earliest time is kept
    }
  }

  /** Puts an entry with nothing pending in the heap or, without delay, in line (or HELD). */
  private void place(PriorityEntry<T> e, long delayNanos) {
    if (delayNanos > 0) {
      e.pending = WAITING;
      waiting.offerEarliest(e, TimeMath.deadline(clock.nanoTime(), delayNanos));
      wakeup.rearm(waiting);
    } else {
      makeReady(e, readyNowLocked());
    }
  }

  /** A READY or HELD item's priority rises to {@code priority}, if that is higher. */
  private void raise(PriorityEntry<T> e, int priority) {
    if (priority <= e.priority) {
      return;
    }
    int old = e.priority;
    if (e.pending == READY) {
      ready.moveTo(e, priority); // to the tail of its new line
    } else {
      e.priority = priority;
    }
    e.publish();
    if (depthByPriority != null) {
      depthByPriority.move(old, priority);
    }
  }

  /**
   * The clock reading for an item that becomes ready now, after promoting every waiting item
   * that is due (they became ready earlier). Reads no clock if nothing waits and aging is off.
   */
  private long readyNowLocked() {
    if (waiting.isEmpty()) {
      return agingNanos > 0 ? clock.nanoTime() : 0;
    }
    long now = clock.nanoTime();
    promoteDueLocked(now);
    return now;
  }

  private void promoteDueLocked(long now) {
    if (waiting.isEmpty() || !TimeMath.reached(now, waiting.headReadyAt())) {
      return;
    }
    do {
      long readyAt = waiting.headReadyAt();
      makeReady(waiting.poll(), readyAt);
    } while (!waiting.isEmpty() && TimeMath.reached(now, waiting.headReadyAt()));
    wakeup.rearm(waiting);
  }

  private void onWakeupLocked() {
    if (!shuttingDown) {
      promoteDueLocked(clock.nanoTime());
      wakeup.rearm(waiting); // fired early (its head was cancelled): arm for the new head
    }
  }

  /** {@code e}, not in the heap nor in a line, becomes dirty: in its line, or HELD. */
  private void makeReady(PriorityEntry<T> e, long readySince) {
    e.readySince = readySince;
    if (e.processing) {
      e.pending = HELD;
    } else {
      e.pending = READY;
      ready.append(e);
      if (waiters > 0) {
        notEmpty.signal();
      }
    }
    e.publish();
    dirty++;
    metrics.added(e.item, dirty);
    if (depthByPriority != null) {
      depthByPriority.increment(e.priority);
    }
  }

  // ---- takes ----

  @Override
  public Optional<T> get() throws InterruptedException {
    lock.lock();
    try {
      PriorityEntry<T> e = takeWaitingLocked(-1);
      return e == null ? Optional.empty() : Optional.of(e.item);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<PriorityItem<T>> getWithPriority() throws InterruptedException {
    lock.lock();
    try {
      PriorityEntry<T> e = takeWaitingLocked(-1);
      return e == null ? Optional.empty() : Optional.of(new PriorityItem<>(e.item, e.priority));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<T> poll(Duration timeout) throws InterruptedException {
    requireArg(timeout, "timeout");
    lock.lock();
    try {
      PriorityEntry<T> e = takeWaitingLocked(TimeMath.delayNanos(timeout));
      return e == null ? Optional.empty() : Optional.of(e.item);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<PriorityItem<T>> pollWithPriority(Duration timeout)
      throws InterruptedException {
    requireArg(timeout, "timeout");
    lock.lock();
    try {
      PriorityEntry<T> e = takeWaitingLocked(TimeMath.delayNanos(timeout));
      return e == null ? Optional.empty() : Optional.of(new PriorityItem<>(e.item, e.priority));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes the next item, waiting up to {@code timeoutNanos} (forever if negative) on the
   * queue's clock; null if none came in time or the queue is shut down and has none left.
   */
  private PriorityEntry<T> takeWaitingLocked(long timeoutNanos) throws InterruptedException {
    PriorityEntry<T> e = takeLocked();
    if (e != null || shuttingDown || timeoutNanos == 0) {
      return e;
    }
    long deadline = timeoutNanos > 0 ? TimeMath.deadline(clock.nanoTime(), timeoutNanos) : 0;
    while (true) {
      long left = 1;
      waiters++;
      try {
        if (timeoutNanos < 0) {
          notEmpty.await();
        } else {
          left = clock.awaitUntil(lock, notEmpty, deadline);
        }
      } finally {
        waiters--;
      }
      e = takeLocked();
      if (e != null || shuttingDown || left <= 0) {
        return e;
      }
    }
  }

  /** The next item to hand out, moved to processing; null if nothing is ready. */
  private PriorityEntry<T> takeLocked() {
    long now = 0;
    boolean haveNow = false;
    if (!waiting.isEmpty()) {
      now = clock.nanoTime(); // consumers promote too: a late wake-up never holds them up
      haveNow = true;
      promoteDueLocked(now);
    }
    PriorityEntry<T> e = ready.top();
    if (e == null) {
      return null;
    }
    if (agingNanos > 0) {
      PriorityEntry<T> oldest = ready.oldest();
      if (oldest != e) {
        if (!haveNow) {
          now = clock.nanoTime();
        }
        if (now - oldest.readySince >= agingNanos) {
          e = oldest; // waited past the threshold: served ahead of every priority
        }
      }
    }
    ready.remove(e);
    e.pending = NONE;
    e.processing = true;
    e.publish();
    dirty--;
    metrics.taken(e.item, dirty);
    if (depthByPriority != null) {
      depthByPriority.decrement(e.priority);
    }
    return e;
  }

  @Override
  public void done(T item) {
    requireItem(item);
    lock.lock();
    try {
      PriorityEntry<T> e = entries.get(item);
      if (e == null || !e.processing) {
        warnUnpairedDone(item);
        return;
      }
      e.processing = false;
      metrics.finished(item);
      if (e.pending == NONE) {
        remove(e);
      } else if (e.pending == HELD) {
        // Dirty all along (depth and priority unchanged); it joins its line now.
        e.readySince = readyNowLocked();
        e.pending = READY;
        ready.append(e);
        if (waiters > 0) {
          notEmpty.signal();
        }
      } // WAITING: stays in the heap
      drain.signalIfDrained();
    } finally {
      lock.unlock();
    }
  }

  /** Drops an entry with nothing pending and not processing from the map. */
  private void remove(PriorityEntry<T> e) {
    e.removed = true;
    entries.remove(e.item);
  }

  private void warnUnpairedDone(T item) {
    if (!warnedUnpairedDone) {
      warnedUnpairedDone = true;
      log.warn("queue {}: done({}) for an item that is not processing; ignored (logged once"
          + " per queue): every done must follow the get that handed the item out",
          name == null ? "(unnamed)" : name, item);
    }
  }

  // ---- delaying and rate-limiting extras ----

  @Override
  public void reschedule(T item, Duration delay) {
    requireItem(item);
    requireArg(delay, "delay");
    long nanos = TimeMath.delayNanos(delay);
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      metrics.retried();
      PriorityEntry<T> e = entries.get(item);
      if (e != null && e.pending == WAITING) {
        if (nanos > 0) {
          waiting.schedule(e, TimeMath.deadline(clock.nanoTime(), nanos));
          wakeup.rearm(waiting);
        } else {
          waiting.remove(e);
          wakeup.rearm(waiting);
          makeReady(e, readyNowLocked());
        }
      } else if (e == null || e.pending == NONE) {
        addLocked(item, 0, nanos, e);
      } // READY or HELD: a ready item stays ready
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean cancel(T item) {
    requireItem(item);
    lock.lock();
    try {
      PriorityEntry<T> e = entries.get(item);
      if (e == null || e.pending != WAITING) {
        return false;
      }
      waiting.remove(e);
      wakeup.rearm(waiting);
      e.pending = NONE;
      if (!e.processing) {
        remove(e);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void forget(T item) {
    limiter.forget(requireItem(item));
  }

  @Override
  public int numRequeues(T item) {
    return limiter.numRequeues(requireItem(item));
  }

  // ---- sizes and shutdown ----

  @Override
  public int size() {
    lock.lock();
    try {
      return ready.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int waitingCount() {
    lock.lock();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void shutDown() {
    drain.shutDown();
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    drain.shutDownWithDrain();
  }

  @Override
  public boolean shutDownWithDrain(Duration timeout) throws InterruptedException {
    return drain.shutDownWithDrain(timeout);
  }

  /** Once: adds stop, waiting items are discarded, the wake-up and metrics stop, gets wake. */
  private void markShuttingDown() {
    if (shuttingDown) {
      return;
    }
    shuttingDown = true;
    while (!waiting.isEmpty()) {
      PriorityEntry<T> e = waiting.poll();
      e.pending = NONE;
      if (!e.processing) {
        remove(e);
      }
    }
    waiting.clear();
    wakeup.cancel();
    metrics.stopped();
    notEmpty.signalAll();
  }

  @Override
  public boolean isShuttingDown() {
    return shuttingDown;
  }

  /** For tests: the internal structures agree with each other. */
  boolean checkInvariants() {
    lock.lock();
    try {
      int nReady = 0;
      int nHeld = 0;
      int nWaiting = 0;
      for (PriorityEntry<T> e : entries.values()) {
        switch (e.pending) {
          case READY -> nReady++;
          case HELD -> nHeld++;
          case WAITING -> nWaiting++;
          default -> {
            if (!e.processing) {
              return false;
            }
          }
        }
        if (e.pending == HELD && !e.processing || e.pending == READY && e.processing) {
          return false;
        }
        if (e.readyPriority != (e.isDirty() ? e.priority : PriorityEntry.NOT_READY)) {
          return false;
        }
      }
      return ready.checkInvariants() && waiting.checkInvariants()
          && nReady == ready.size() && nWaiting == waiting.size() && nReady + nHeld == dirty;
    } finally {
      lock.unlock();
    }
  }
}
