package dev.workqueue.benchmarks;

import dev.workqueue.DelayingQueue;
import io.kubernetes.client.extended.workqueue.DefaultDelayingQueue;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * PERF.md's last bar: how many threads {@value #QUEUES} idle delaying queues own. Counts live
 * threads (JMX) before and after, for the toolkit in three states and for the peer:
 *
 * <ul>
 *   <li>toolkit, created and never used;
 *   <li>toolkit, used: each queue got an {@code addAfter(…, 1 ms)}, its item was taken and
 *       {@code done}, then the queues sat idle for {@value #IDLE_SECONDS} s;
 *   <li>toolkit, each holding one item due in an hour (an unnamed queue arms no wake-up: its
 *       consumers move due items; a named one with metrics would arm one on the shared timer,
 *       which is not a thread per queue);
 *   <li>the peer's {@code DefaultDelayingQueue}, created with its own constructor and never
 *       used.
 * </ul>
 *
 * <p>Prints one line, e.g. {@code toolkit never used 0, used then idle 0, holding a 1 h item 0;
 * peer never used 1000}. Run by {@code benchmarks/run.sh} for the report; by hand: {@code java
 * -cp benchmarks/target/benchmarks.jar dev.workqueue.benchmarks.IdleThreads}. Exits the JVM
 * at the end: the peer's threads are not daemons and it has no way to stop them.
 */
public final class IdleThreads {
  static final int QUEUES = 1000;
  static final int IDLE_SECONDS = 2;

  private IdleThreads() {}

  public static void main(String[] args) throws InterruptedException {
    System.out.println(measure());
    System.exit(0);
  }

  static String measure() throws InterruptedException {
    ThreadMXBean jmx = ManagementFactory.getThreadMXBean();
    List<DelayingQueue<Integer>> toolkit = new ArrayList<>();

    int base = settledThreadCount(jmx);
    for (int i = 0; i < QUEUES; i++) {
      toolkit.add(DelayingQueue.create());
    }
    int neverUsed = settledThreadCount(jmx) - base;

    for (DelayingQueue<Integer> q : toolkit) {
      q.addAfter(1, Duration.ofMillis(1));
    }
    for (DelayingQueue<Integer> q : toolkit) {
      Integer item = q.poll(Duration.ofSeconds(30)).orElseThrow(
          () -> new IllegalStateException("a delayed item was not delivered within 30 s"));
      q.done(item);
    }
    TimeUnit.SECONDS.sleep(IDLE_SECONDS);
    int usedThenIdle = settledThreadCount(jmx) - base;

    for (DelayingQueue<Integer> q : toolkit) {
      q.addAfter(2, Duration.ofHours(1));
    }
    int holdingItem = settledThreadCount(jmx) - base;
    toolkit.forEach(DelayingQueue::shutDown);
    toolkit.clear();
    TimeUnit.SECONDS.sleep(IDLE_SECONDS);

    int peerBase = settledThreadCount(jmx);
    List<DefaultDelayingQueue<Integer>> peer = new ArrayList<>();
    for (int i = 0; i < QUEUES; i++) {
      peer.add(new DefaultDelayingQueue<>());
    }
    int peerNeverUsed = settledThreadCount(jmx) - peerBase;
    return String.format(Locale.ROOT, "toolkit never used %d, used then idle %d, holding a 1 h "
        + "item %d; peer never used %d", neverUsed, usedThenIdle, holdingItem, peerNeverUsed);
  }

  /** The live thread count once threads that are starting or exiting have settled. */
  private static int settledThreadCount(ThreadMXBean jmx) throws InterruptedException {
    int last = -1;
    for (int i = 0; i < 50; i++) {
      int now = jmx.getThreadCount();
      if (now == last) {
        return now;
      }
      last = now;
      TimeUnit.MILLISECONDS.sleep(20);
    }
    return last;
  }
}
