package dev.workqueue.examples.pool;

import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Settings of a {@link PoolScheduler}; from {@link PoolScheduler#builder}. Each setter checks
 * its argument at once. Not thread-safe; {@link #build()} may be called more than once.
 */
public final class PoolSchedulerBuilder {
  final String pool;
  final PodApi api;
  Clock clock = Clock.system();
  Duration reservationTtl = Duration.ofSeconds(2);
  int maxConcurrentClaims = 128;
  int requestBuffer = 1024;
  Duration pollBase = Duration.ofSeconds(10);
  Duration pollMax = Duration.ofMinutes(5);
  Duration idleNotifyDelay = Duration.ofMillis(200);
  Executor claimExecutor;

  PoolSchedulerBuilder(String pool, PodApi api) {
    Objects.requireNonNull(pool, "pool");
    if (pool.isBlank()) {
      throw new IllegalArgumentException("pool must not be blank");
    }
    this.pool = pool;
    this.api = Objects.requireNonNull(api, "api");
  }

  /**
   * The time source for reservations, the poll back-off, idle-notification delays and
   * request timeouts. Default {@link Clock#system()}; a {@code FakeClock} in tests.
   */
  public PoolSchedulerBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * How long a pod handed to a claim stays out of the ready queue, so that the informer
   * cache's stale "Idle" cannot hand it out twice. Default 2 s; longer than the watch lag,
   * shorter than a pod's way back to Idle.
   *
   * @throws IllegalArgumentException if {@code ttl} is not positive
   */
  public PoolSchedulerBuilder reservationTtl(Duration ttl) {
    this.reservationTtl = positive(ttl, "reservationTtl");
    return this;
  }

  /**
   * The most claim writes under way at once. Default 128.
   *
   * @throws IllegalArgumentException if {@code n < 1}
   */
  public PoolSchedulerBuilder maxConcurrentClaims(int n) {
    this.maxConcurrentClaims = atLeastOne(n, "maxConcurrentClaims");
    return this;
  }

  /**
   * The most requests accepted and not yet ended; {@link PoolScheduler#enqueue} returns false
   * beyond it. Default 1024.
   *
   * @throws IllegalArgumentException if {@code n < 1}
   */
  public PoolSchedulerBuilder requestBuffer(int n) {
    this.requestBuffer = atLeastOne(n, "requestBuffer");
    return this;
  }

  /**
   * The poll interval while requests wait and no pod is idle: {@code base}, doubling each
   * poll that finds nothing, up to {@code max} (a {@code RateLimiters.exponential} limiter).
   * Default 10 s to 5 min.
   *
   * @throws IllegalArgumentException if {@code base} is not positive or {@code max < base}
   */
  public PoolSchedulerBuilder pollBackoff(Duration base, Duration max) {
    positive(base, "base");
    positive(max, "max");
    if (max.compareTo(base) < 0) {
      throw new IllegalArgumentException("max must be >= base, was " + max + " < " + base);
    }
    this.pollBase = base;
    this.pollMax = max;
    return this;
  }

  /**
   * How long after {@link PoolScheduler#notifyIdle} the idle pods are listed: the time the
   * informer cache needs to see the pod's Idle phase. Default 200 ms; zero lists at once.
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public PoolSchedulerBuilder idleNotifyDelay(Duration delay) {
    Objects.requireNonNull(delay, "idleNotifyDelay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("idleNotifyDelay must be >= 0, was " + delay);
    }
    this.idleNotifyDelay = delay;
    return this;
  }

  /**
   * Where claim writes and the scale-up write run. Default: threads the scheduler owns
   * ({@code poolsched-<pool>-claim-N}, at most one per concurrent claim plus one, gone after
   * an idle second, stopped by shutdown). A caller's executor is not shut down by the
   * scheduler, must accept {@code maxConcurrentClaims + 1} tasks at once, and may run them on
   * virtual threads.
   */
  public PoolSchedulerBuilder claimExecutor(Executor executor) {
    this.claimExecutor = Objects.requireNonNull(executor, "claimExecutor");
    return this;
  }

  /** A new scheduler, not started. */
  public PoolScheduler build() {
    return new PoolScheduler(this);
  }

  /**
   * The scheduler's own claim threads. Keeps the threads it started (pruning dead ones) so
   * that shutdown can join them: an executor reports termination a moment before its last
   * thread has ended.
   */
  static final class ClaimPool {
    final ThreadPoolExecutor executor;
    private final ConcurrentLinkedQueue<Thread> threads = new ConcurrentLinkedQueue<>();

    ClaimPool(String prefix, int size) {
      AtomicInteger n = new AtomicInteger();
      ThreadFactory factory = r -> {
        threads.removeIf(t -> !t.isAlive());
        Thread t = new Thread(r, prefix + "-claim-" + n.incrementAndGet());
        t.setDaemon(true);
        threads.add(t);
        return t;
      };
      executor = new ThreadPoolExecutor(size, size, 1, TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(), factory);
      executor.allowCoreThreadTimeOut(true);
    }

    /** Shuts the pool down and waits until its threads have ended, or the deadline. */
    boolean stop(long deadlineNanos) throws InterruptedException {
      executor.shutdown();
      if (!executor.awaitTermination(
          Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        executor.shutdownNow();
      }
      boolean allEnded = true;
      for (Thread t : threads) {
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
          TimeUnit.NANOSECONDS.timedJoin(t, left);
        }
        allEnded &= !t.isAlive();
      }
      return allEnded;
    }
  }

  private static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, was " + d);
    }
    return d;
  }

  private static int atLeastOne(int n, String name) {
    if (n < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, was " + n);
    }
    return n;
  }
}
