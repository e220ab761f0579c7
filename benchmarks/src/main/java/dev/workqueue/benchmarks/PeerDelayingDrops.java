package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Evidence that the peer's {@code DefaultDelayingQueue} cannot hold a burst of delayed items:
 * adds {@value #ITEMS} distinct items back to back with {@code addAfter(item, 50 ms)} (the
 * peer's own method, no pacing), then counts what it delivers within {@value #WAIT_SECONDS} s.
 * Prints "delivered D of N". The toolkit and {@code DelayQueue} deliver all of them.
 *
 * <p>Run by {@code benchmarks/run.sh} for the report; by hand: {@code java -cp
 * benchmarks/target/benchmarks.jar dev.workqueue.benchmarks.PeerDelayingDrops}.
 */
public final class PeerDelayingDrops {
  static final int ITEMS = 5000;
  static final int WAIT_SECONDS = 2;

  private PeerDelayingDrops() {}

  public static void main(String[] args) {
    System.out.println("delivered " + delivered() + " of " + ITEMS);
  }

  static int delivered() {
    DelayingContender.Peer q = new DelayingContender.Peer();
    try {
      Integer[] keys = Keys.ring(8192);
      Duration delay = Duration.ofMillis(50);
      for (int i = 0; i < ITEMS; i++) {
        q.addAfterUnpaced(keys[i], delay);
      }
      int delivered = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (System.nanoTime() - deadline < 0) {
        Integer k = q.tryTake();
        if (k == null) {
          LockSupport.parkNanos(1_000_000);
        } else {
          q.done(k);
          delivered++;
        }
      }
      return delivered;
    } finally {
      q.close();
    }
  }
}
