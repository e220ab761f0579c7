package dev.workqueue;

import static dev.workqueue.Items.requireArg;
import static dev.workqueue.Items.requireItem;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The basic work queue. client-go keeps two sets, {@code dirty} and {@code processing}; here
 * one map from item to {@link State} holds both, so {@code add}, {@code get} and {@code done}
 * each cost one hash operation and an item costs one map entry:
 *
 * <pre>
 *   state             dirty  processing  in storage
 *   QUEUED            yes    no          yes
 *   PROCESSING        no     yes         no
 *   PROCESSING_DIRTY  yes    yes         no   (goes to storage at done)
 *   (absent)          no     no          no
 * </pre>
 *
 * Everything is guarded by {@link #lock}. Consumers wait on {@link #notEmpty}; an add signals
 * it only when a consumer is waiting. Subclasses (the delaying layer) share the lock.
 */
class DefaultWorkQueue<T> implements WorkQueue<T> {
  private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);

  enum State { QUEUED, PROCESSING, PROCESSING_DIRTY }

  final ReentrantLock lock = new ReentrantLock();
  /** Consumers wait here; the delaying layer also waits its leader here. */
  final Condition notEmpty = lock.newCondition();
  final Clock clock;
  final QueueMetrics<T> metrics;
  final String name;

  /**
   * Written only under the lock; read without it by the dedup fast path of {@link #add}. A
   * concurrent map so that a producer re-adding an item that is already dirty never takes the
   * lock: under an add storm of hot keys the consumers then have the lock to themselves.
   */
  private final ConcurrentHashMap<T, State> states = new ConcurrentHashMap<>();
  private final boolean touchIsNoop;
  final QueueStorage<T> storage;
  private int dirty;
  /** Consumers waiting on {@link #notEmpty}: adds signal only while there are some. */
  int waiters;
  volatile boolean shuttingDown; // written under the lock; read without it for fast paths
  private final Drain drain;
  private boolean warnedUnpairedDone;

  DefaultWorkQueue(WorkQueueBuilder<T> b) {
    this.clock = b.clock;
    this.drain = new Drain(lock, clock, states::isEmpty, this::markShuttingDown);
    this.name = b.name;
    this.storage = b.takeStorage();
    this.touchIsNoop = storage instanceof FifoStorage;
    this.metrics = b.newMetrics(lock);
  }

  @Override
  public void add(T item) {
    requireItem(item);
    if (isDirtyNoTouch(item)) {
      return; // linearizes at the read: the item was dirty then, so this add changes nothing
    }
    lock.lock();
    try {
      promoteDueLocked();
      addLocked(item);
    } finally {
      lock.unlock();
    }
  }

  /** Whether an add of {@code item} can be skipped without the lock. */
  final boolean isDirtyNoTouch(T item) {
    if (!touchIsNoop) {
      return false;
    }
    State s = states.get(item);
    return s == State.QUEUED || s == State.PROCESSING_DIRTY;
  }

  /** The body of {@link #add}, for callers that hold the lock; ignores adds after shutdown. */
  final void addLocked(T item) {
    if (shuttingDown) {
      return;
    }
    State previous = states.putIfAbsent(item, State.QUEUED);
    if (previous == null) {
      dirty++;
      metrics.added(item, dirty);
      storage.push(item);
      if (waiters > 0) {
        notEmpty.signal();
      }
    } else if (previous == State.QUEUED) {
      storage.touch(item);
    } else if (previous == State.PROCESSING) {
      states.put(item, State.PROCESSING_DIRTY);
      dirty++;
      metrics.added(item, dirty);
    }
    // PROCESSING_DIRTY: already coming back at done.
  }

  @Override
  public Optional<T> get() throws InterruptedException {
    lock.lock();
    try {
      promoteDueLocked();
      while (storage.size() == 0) {
        if (shuttingDown) {
          return Optional.empty();
        }
        waiters++;
        try {
          notEmpty.await();
        } finally {
          waiters--;
        }
      }
      return Optional.of(takeLocked());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<T> poll(Duration timeout) throws InterruptedException {
    requireArg(timeout, "timeout");
    lock.lock();
    try {
      promoteDueLocked();
      if (storage.size() == 0 && !shuttingDown && timeout.compareTo(Duration.ZERO) > 0) {
        long deadline = TimeMath.deadline(clock.nanoTime(), TimeMath.delayNanos(timeout));
        waiters++;
        try {
          while (storage.size() == 0 && !shuttingDown) {
            if (clock.awaitUntil(lock, notEmpty, deadline) <= 0 && storage.size() == 0) {
              break;
            }
          }
        } finally {
          waiters--;
        }
      }
      return storage.size() == 0 ? Optional.empty() : Optional.of(takeLocked());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Called under the lock before an operation that reads or changes the ready queue ({@code
   * add}, {@code done}, {@code get}, {@code poll}, {@code size}, shutdown): the delaying layer
   * moves the items that are due into the queue here, so every operation sees them queued as
   * if they had been added at their ready time.
   */
  void promoteDueLocked() {}

  final T takeLocked() {
    T item = storage.pop();
    states.put(item, State.PROCESSING);
    dirty--;
    metrics.taken(item, dirty);
    return item;
  }

  @Override
  public void done(T item) {
    requireItem(item);
    lock.lock();
    try {
      promoteDueLocked(); // before reading the state: a due delayed add of item counts first
      State state = states.remove(item);
      if (state == State.PROCESSING) {
        metrics.finished(item);
      } else if (state == State.PROCESSING_DIRTY) {
        metrics.finished(item);
        states.put(item, State.QUEUED);
        storage.push(item);
        if (waiters > 0) {
          notEmpty.signal();
        }
      } else {
        if (state == State.QUEUED) {
          states.put(item, State.QUEUED); // undo: it was queued, not processing
        }
        warnUnpairedDone(item);
        return;
      }
      drain.signalIfDrained();
    } finally {
      lock.unlock();
    }
  }

  private void warnUnpairedDone(T item) {
    if (!warnedUnpairedDone) {
      warnedUnpairedDone = true;
      log.warn("queue {}: done({}) for an item that is not processing; ignored (logged once"
          + " per queue): every done must follow the get that handed the item out",
          name == null ? "(unnamed)" : name, item);
    }
  }

  @Override
  public int size() {
    lock.lock();
    try {
      promoteDueLocked();
      return storage.size();
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

  private void markShuttingDown() {
    if (!shuttingDown) {
      promoteDueLocked(); // what was due is queued, and still handed out after shutdown
      shuttingDown = true;
      onShutDown();
      metrics.stopped();
      notEmpty.signalAll();
    }
  }

  /** Called once, under the lock, when the queue shuts down: subclasses stop what they run. */
  void onShutDown() {}

  @Override
  public boolean isShuttingDown() {
    return shuttingDown;
  }
}
