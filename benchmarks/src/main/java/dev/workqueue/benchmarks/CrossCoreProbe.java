package dev.workqueue.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures, in the background, how long a cache line takes to go from one core to another and
 * back: every {@value #PERIOD_MILLIS} ms a burst of {@value #GROUPS} groups of {@value
 * #GROUP_TRIPS} round trips between two threads pinned to two CPUs, each spinning on its own
 * cache line; the fastest group's mean counts (a group, not a single trip, is timed, so that the
 * clock's own cost hardly shows). A burst is <em>near</em> if that mean is under {@value
 * #FAR_NANOS} ns, <em>far</em> if it is longer, and is not counted if the two threads were not
 * running at the same time (a round trip waited more than {@value #GIVE_UP_NANOS} ns: one of
 * them was descheduled).
 *
 * <p>Why: on the 2-vCPU virtual machine these benchmarks run on, the round trip is about 70 ns
 * for some seconds and about 400 ns for others, episodes that last from one second to tens of
 * seconds (presumably the host placing the two vCPUs on cores that share a cache, or not).
 * A queue that hands each item across cores through several atomic operations on lines the other
 * core wrote runs at a fraction of its speed in the far episodes, while one that serialises on a
 * lock barely notices; so a ratio between two contenders measured at different times says more
 * about the host than about them unless each iteration is tagged with the mode it ran in ({@link
 * HostModeProfiler}). Run {@link #main} to see the modes of a machine over time.
 *
 * <p>Cost: a burst and the answering thread's wait for the next ask, about 0.3% of a core; up to
 * 2% if the asker is descheduled in the middle of a burst (the answering thread then spins
 * {@value #ANSWER_SPIN_NANOS} ns before it parks).
 */
final class CrossCoreProbe {
  static final long FAR_NANOS = 200;
  static final int PERIOD_MILLIS = 100;
  static final int GROUPS = 20;
  static final int GROUP_TRIPS = 5;
  static final long GIVE_UP_NANOS = 20_000;
  /**
   * How long the answering thread keeps spinning for the next ask before it parks, if the asker
   * does not end the burst first (it does at the end of every burst).
   */
  private static final long ANSWER_SPIN_NANOS = 2_000_000;

  private static CrossCoreProbe shared;

  /** The asker's line and the answerer's, 128 bytes apart (slots {@link #ASK}, {@link #ANSWER}). */
  private final AtomicLongArray lines = new AtomicLongArray(32);
  private static final int ASK = 0;
  private static final int ANSWER = 16;
  private final AtomicLong near = new AtomicLong();
  private final AtomicLong far = new AtomicLong();
  private final Thread answering;

  private CrossCoreProbe() {
    answering = new Thread(this::answer, "cross-core-probe-answer");
    answering.setDaemon(true);
    answering.start();
    Thread asking = new Thread(this::ask, "cross-core-probe-ask");
    asking.setDaemon(true);
    asking.start();
  }

  /**
   * Pins the calling thread to the {@code index}th CPU this process may use, with {@code
   * taskset}: left to itself, Linux wakes the answering thread on the asker's CPU when the
   * machine is idle, and the two then take turns instead of measuring anything. Without {@code
   * taskset}, or off Linux, the probe runs unpinned and measures fewer bursts.
   */
  private static void pinTo(int index) {
    try {
      String allowed = Files.readAllLines(Path.of("/proc/self/status")).stream()
          .filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst().orElseThrow()
          .substring("Cpus_allowed_list:".length()).trim();
      List<Integer> cpus = new ArrayList<>();
      for (String range : allowed.split(",")) {
        String[] ends = range.split("-");
        for (int c = Integer.parseInt(ends[0]); c <= Integer.parseInt(ends[ends.length - 1]);
            c++) {
          cpus.add(c);
        }
      }
      if (cpus.size() < 2) {
        return;
      }
      String tid = Path.of("/proc/thread-self").toRealPath().getFileName().toString();
      new ProcessBuilder("taskset", "-p", "-c", String.valueOf(cpus.get(index)), tid)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start().waitFor();
    } catch (IOException | RuntimeException e) {
      // not Linux, or no taskset: unpinned
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The probe of this JVM, started on first use. */
  static synchronized CrossCoreProbe shared() {
    if (shared == null) {
      shared = new CrossCoreProbe();
    }
    return shared;
  }

  /** {near, far} bursts since the last call. */
  long[] takeCounts() {
    return new long[] {near.getAndSet(0), far.getAndSet(0)};
  }

  private void answer() {
    pinTo(1);
    long seen = 0;
    while (true) {
      long deadline = System.nanoTime() + ANSWER_SPIN_NANOS;
      long v;
      while ((v = lines.get(ASK)) == seen && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      if (v == seen || v < 0) { // timed out, or the burst is over (a negated ask)
        seen = v;
        LockSupport.park(this); // the asker unparks at the start of each burst
        continue;
      }
      seen = v;
      lines.set(ANSWER, v);
    }
  }

  private void ask() {
    pinTo(0);
    long v = 0;
    while (true) {
      LockSupport.parkNanos(PERIOD_MILLIS * 1_000_000L);
      v++;
      lines.set(ASK, v);
      LockSupport.unpark(answering);
      boolean together = awaitWakeUp(v);
      long fastest = Long.MAX_VALUE;
      for (int g = 0; g < GROUPS && together; g++) {
        long start = System.nanoTime();
        for (int i = 0; i < GROUP_TRIPS && together; i++) {
          v++;
          lines.set(ASK, v);
          together = awaitAnswer(v, GIVE_UP_NANOS);
        }
        fastest = Math.min(fastest, (System.nanoTime() - start) / GROUP_TRIPS);
      }
      lines.set(ASK, -v); // the burst is over: the answering thread parks
      if (together) {
        (fastest < FAR_NANOS ? near : far).incrementAndGet();
      }
    }
  }

  /**
   * The first answer of a burst: the answering thread has to wake up first, which on an idle
   * virtual machine can take a millisecond or more; polled without spinning.
   */
  private boolean awaitWakeUp(long v) {
    for (int i = 0; i < 1000 && lines.get(ANSWER) != v; i++) {
      LockSupport.parkNanos(20_000);
    }
    return lines.get(ANSWER) == v;
  }

  private boolean awaitAnswer(long v, long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    while (lines.get(ANSWER) != v) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.onSpinWait();
    }
    return true;
  }

  /**
   * Prints one letter per {@value #PERIOD_MILLIS} ms for {@code args[0]} seconds (default 30):
   * {@code n} near, {@code F} far, {@code .} not measured.
   */
  public static void main(String[] args) throws InterruptedException {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    CrossCoreProbe p = shared();
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < seconds * 1000 / PERIOD_MILLIS; i++) {
      Thread.sleep(PERIOD_MILLIS);
      long[] c = p.takeCounts();
      line.append(c[1] > 0 ? 'F' : c[0] > 0 ? 'n' : '.');
      if (line.length() == 100) {
        System.out.println(line);
        line.setLength(0);
      }
    }
    System.out.println(line);
  }
}
