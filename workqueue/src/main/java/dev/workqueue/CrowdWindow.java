package dev.workqueue;

/**
 * Whether more than one consumer thread takes from a FIFO queue whose adds may skip the lock
 * ({@link IntakeAdds}): then an add of a new item puts its entry in line under the lock, and a
 * consumer about to wait parks without spinning first ({@link Consumers#spinForAnAdd}).
 *
 * <p>Why: with the intake, producers never wait, so with more threads than processors every
 * processor runs queue work at once, and each item's entry, its map bin and the consumers' lock
 * cross between processors. On the 2-vCPU machine of the benchmarks that load went with the
 * host's slow cross-core episodes (a ~400 ns round trip instead of ~70) in about half of the
 * measured seconds, where two producers and two consumers ran at under half their speed. When
 * adds take the lock, threads wait for it in turn and the work runs in bursts on one processor
 * at a time, as client-go's one-mutex queue does; that held its rate. One consumer keeps the
 * intake. Under a steady load of two producers and two consumers it flips often: while adds take
 * the lock, one consumer may take a whole window alone while the other waits for the lock; that
 * mix measured faster than either way alone (benchmarks/RESULTS.md).
 *
 * <p>Decided by the consumers, per {@value #WINDOW} takes ({@link #noteTake}): on once two
 * changes of the taking thread fell in one window, off again after a window with none. Written
 * under the queue's lock, only when it changes, and read by producers without it. A producer
 * that read it stale only takes the other way in: every take drains the intake before it looks
 * at the line. Performance only: a queue taken from by changing threads (an executor's, virtual
 * threads) stays crowded, and adds then cost what they cost on a named queue.
 */
final class CrowdWindow extends CrowdFlagPadded {
  /** How many takes {@link #noteTake} counts before it decides {@link #crowded} again. */
  static final int WINDOW = 256;

  // Under the queue's lock:
  private long lastId = -1; // the id of the thread that took last
  private int takes;
  private int changes;

  CrowdWindow(boolean crowded) {
    this.crowded = crowded;
  }

  /** Without the lock: whether new items join the line under the lock. */
  boolean isCrowded() {
    return crowded;
  }

  /** Under the lock, after a take: counts the changes of the taking thread. */
  void noteTake() {
    long me = Thread.currentThread().getId();
    if (me != lastId) {
      lastId = me;
      changes++;
    }
    if (++takes == WINDOW) {
      boolean now = crowded ? changes > 0 : changes >= 2;
      if (now != crowded) {
        crowded = now;
      }
      takes = 0;
      changes = 0;
    }
  }
}

/** {@link CrowdWindow}'s flag, read by producers on every add. */
abstract class CrowdFlag {
  volatile boolean crowded;
}

/** Keeps {@link CrowdWindow}'s counts, which every take writes, off the flag's cache line. */
@SuppressWarnings("unused")
abstract class CrowdFlagPadded extends CrowdFlag {
  long p0, p1, p2, p3, p4, p5, p6, p7;
}
