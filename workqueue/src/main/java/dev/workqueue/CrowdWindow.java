package dev.workqueue;

/**
 * Whether more than one consumer thread takes from a FIFO queue whose adds of new items may skip
 * the lock ({@link IntakeAdds}): while it is so (<em>crowded</em>), those adds take the lock, and a
 * consumer about to wait parks without spinning first ({@link Consumers#spinForAnAdd}); the merge
 * of an add into a pending round, and a {@code done} that only ends a round ({@link
 * Entry#tryRetire}), still skip it.
 *
 * <p>Why: the steps without the lock pay where one producer hands items to one consumer (each
 * works on its own side of the line, and the consumer finds the next item without waking). With
 * more threads than that, producers never wait and every processor runs queue work at once: each
 * item's entry, its map bin and the consumers' lock cross between processors on every step. On
 * the 2-vCPU machine of the benchmarks, whose cross-core round trip is about 400 ns in its slow
 * episodes, two producers and two consumers ran at two thirds of client-go's one-mutex queue
 * that way, and at about its rate with every add and {@code done} under the lock, where threads
 * wait for the lock in turn and the work runs in bursts on one processor at a time
 * (benchmarks/RESULTS.md, session 18). The {@code done}s stay without the lock: with them under
 * the lock too, a controller with two workers (each reconcile ends in a {@code done}) made
 * 0.65-0.83x the reconciles per second, in six rounds of each, while two producers and two
 * consumers handed off at 0.76-1.45x (median 1.14x) the rate they do with the {@code done}s
 * without it (RESULTS.md, session 21).
 *
 * <p>Decided by the consumers, per {@value #WINDOW} takes ({@link #noteTake}): on once two
 * changes of the taking thread fell in one window; off again only after {@value #QUIET_WINDOWS}
 * windows in a row without a change, since with several consumers one may take a whole window
 * alone while the others wait for the lock, and flipping back and forth measured slower than
 * staying crowded. Written under the queue's lock, only when it changes, and read by producers
 * without it. A thread that read it stale only takes the other way in: both ways are correct at
 * any time (every take drains the intake before it looks at the line). Performance only: a queue
 * taken from by changing threads (an executor's, virtual threads) stays crowded, and its adds
 * then cost what they cost on a named queue.
 */
final class CrowdWindow extends CrowdFlagPadded {
  /** How many takes {@link #noteTake} counts before it decides {@link #crowded} again. */
  static final int WINDOW = 256;
  /** How many windows in a row without a change of the taking thread end the crowd. */
  static final int QUIET_WINDOWS = 16;

  // Under the queue's lock:
  private long lastId = -1; // the id of the thread that took last
  private int takes;
  private int changes;
  private int quietWindows; // in a row, while crowded

  CrowdWindow(boolean crowded) {
    this.crowded = crowded;
  }

  /** Without the lock: whether adds of new items take the lock. */
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
      decide();
      takes = 0;
      changes = 0;
    }
  }

  private void decide() {
    if (!crowded) {
      if (changes >= 2) {
        quietWindows = 0;
        crowded = true;
      }
    } else if (changes > 0) {
      quietWindows = 0;
    } else if (++quietWindows == QUIET_WINDOWS) {
      crowded = false;
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
