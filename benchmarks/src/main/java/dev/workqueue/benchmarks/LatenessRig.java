package dev.workqueue.benchmarks;

import dev.workqueue.benchmarks.DelayingContender.DelayingQueueUnderTest;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Control;

/**
 * What the lateness scenarios share: a delaying queue of one contender, optionally holding far
 * future items, a ring of keys with the due time each was given, the producer's in-flight bound
 * and the consumer's histogram. Lateness = the consumer's {@code System.nanoTime()} just after
 * the take returned − (the producer's {@code System.nanoTime()} just before {@code addAfter} +
 * the delay).
 */
public final class LatenessRig {
  /** Keys of the scenario: far more than can be in flight, so a key is never re-added early. */
  static final int RING = 1 << 16;
  /** At most this many scenario items added and not yet taken. */
  static final int MAX_IN_FLIGHT = 8192;
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  final DelayingQueueUnderTest q;
  private final Integer[] keys = Keys.ring(RING);
  private final int base = keys[0];
  private final long[] due = new long[RING];
  final LatenessHistogram histogram = new LatenessHistogram();
  private long added; // producer only
  private volatile long taken; // consumer only writes

  LatenessRig(String queue, int pending) {
    q = DelayingContender.create(queue);
    if (pending > 0) {
      fillFarFuture(q, pending);
    }
  }

  /** {@code pending} items (keys of their own) due 1–2 hours from now. */
  static void fillFarFuture(DelayingQueueUnderTest q, int pending) {
    SplittableRandom random = new SplittableRandom(7);
    Integer[] far = Keys.ring(Integer.highestOneBit(pending - 1) << 1);
    for (int i = 0; i < pending; i++) {
      long d = HOUR + random.nextLong(HOUR);
      q.addAfter(far[i], Duration.ofNanos(d), d);
    }
    if (q instanceof DelayingContender.Peer) {
      ((DelayingContender.Peer) q).awaitBufferDrained();
    }
  }

  boolean roomForMore() {
    return added - taken < MAX_IN_FLIGHT;
  }

  long inFlight() {
    return added - taken;
  }

  /** Adds the next key, due {@code delay} from now. Producer thread only. */
  void add(Duration delay, long delayNanos) {
    int i = (int) (added & (RING - 1));
    due[i] = System.nanoTime() + delayNanos;
    added++;
    q.addAfter(keys[i], delay, delayNanos);
  }

  /**
   * Takes one item (blocking while measuring, never once measurement stopped), records its
   * lateness while measuring. Consumer thread only.
   *
   * @return whether an item was taken
   */
  boolean takeOne(Control control) throws InterruptedException {
    Integer key;
    if (control.stopMeasurement) {
      key = q.tryTake();
      if (key == null) {
        return false;
      }
    } else {
      key = q.take();
    }
    long now = System.nanoTime();
    if (control.startMeasurement && !control.stopMeasurement) {
      histogram.record(now - due[key - base]);
    }
    q.done(key);
    taken++; // single writer
    return true;
  }

  /** Between iterations (no benchmark thread running): take what is still in flight. */
  void drain() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (added - taken > 0) {
      Integer key = q.tryTake();
      if (key != null) {
        q.done(key);
        taken++;
      } else if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(q.getClass().getSimpleName() + " lost "
            + (added - taken) + " items");
      } else {
        LockSupport.parkNanos(100_000);
      }
    }
  }

  /**
   * The figures of one thread's iteration, JMH secondary results: lateness percentiles in µs
   * and the number of items recorded. Filled in at the iteration tear-down, from the histogram the
   * consumer recorded while measuring; JMH reads them after that tear-down.
   */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Lateness {
    public double p50_us = Double.NaN;
    public double p99_us = Double.NaN;
    public long delivered;

    void publish(LatenessHistogram h) {
      p50_us = h.quantileNanos(0.50) / 1e3;
      p99_us = h.quantileNanos(0.99) / 1e3;
      delivered = h.total();
    }
  }
}
