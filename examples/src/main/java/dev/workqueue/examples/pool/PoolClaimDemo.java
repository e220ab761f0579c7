package dev.workqueue.examples.pool;

import dev.workqueue.clock.Clock;
import dev.workqueue.examples.pool.PoolScheduler.Request;
import dev.workqueue.examples.pool.PoolScheduler.Settings;
import dev.workqueue.examples.pool.PoolScheduler.Stats;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * A few seconds of one sandbox pool: three bursts of 100 requests, 0.5 s apart, ask a {@link
 * PoolScheduler} for pods of a {@link FakePool} that starts with 40 idle pods, shows writes in
 * its cache 50 ms late, takes 5 ms per claim and answers 10% of them with a conflict. A sandbox
 * ends 1 s after its claim and its pod is Idle again ({@code notifyIdle}); the scale-up signal
 * makes a fake autoscaler add 20 pods 1 s later. Time is compressed, and so are the settings.
 */
public final class PoolClaimDemo {
  private PoolClaimDemo() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && args[0].equals("--help")) {
      System.out.println("usage: PoolClaimDemo (it takes no flags)");
      return;
    }
    if (args.length > 0) {
      System.err.println("usage: PoolClaimDemo (it takes no flags)");
      System.exit(2);
    }
    run(System.out, 3, 100, 40);
  }

  /** Runs the simulation, printing the counters every 0.5 s; returns the pool's fake. */
  static FakePool run(PrintStream out, int bursts, int perBurst, int pods) throws Exception {
    FakePool pool = new FakePool(Clock.system(), Duration.ofMillis(50), Duration.ofMillis(5), 0.1);
    pool.addIdle(pods);
    ExecutorService claims = Executors.newCachedThreadPool();
    ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    Settings settings = new Settings(Duration.ofMillis(250), // reservation TTL
        Duration.ofMillis(60), Duration.ofMillis(100), Duration.ofMillis(1600), // idle, poll
        16, 1024); // claims at once, request buffer
    PoolScheduler scheduler = new PoolScheduler("demo", pool, settings, Clock.system(), claims);
    long start = System.nanoTime();
    pool.onScaleUp = waiting -> later.schedule(() -> {
      pool.addIdle(20);
      out.printf("[%4.1f s] autoscaler: %d waited, 20 pods added%n", secs(start), waiting);
      scheduler.notifyIdle();
    }, 1, TimeUnit.SECONDS);
    scheduler.start();

    List<Request> requests = new ArrayList<>();
    for (int burst = 0; burst < bursts; burst++) {
      for (int i = 0; i < perBurst; i++) {
        Request r = Request.of("req-" + requests.size());
        requests.add(r);
        if (!scheduler.enqueue(r)) {
          throw new IllegalStateException("the request buffer is full");
        }
        r.pod().thenAccept(pod -> later.schedule(() -> { // the sandbox ends
          pool.recycle(pod);
          scheduler.notifyIdle();
        }, 1, TimeUnit.SECONDS));
      }
      out.printf("[%4.1f s] %d requests enqueued%n", secs(start), perBurst);
      print(out, start, scheduler.stats());
      Thread.sleep(500);
    }
    while (!requests.stream().allMatch(r -> r.pod().isDone()) && secs(start) < 60) {
      print(out, start, scheduler.stats());
      Thread.sleep(500);
    }
    scheduler.shutdown(Duration.ofSeconds(5));
    claims.shutdown();
    claims.awaitTermination(5, TimeUnit.SECONDS);
    later.shutdownNow(); // sandboxes still running, and the autoscaler
    print(out, start, scheduler.stats());
    out.printf("claimed %d of %d requests in %.1f s: %d claim writes, %d of them on a pod"
        + " already taken; %d listings; %d scale-up signal, pods %d -> %d%n",
        pool.claims.values().stream().mapToInt(Integer::intValue).sum(), requests.size(),
        secs(start), pool.claimWrites.get(), pool.doubleHandOuts.get(), pool.listings.get(),
        scheduler.stats().scaleUps(), pods, pool.pods.size());
    return pool;
  }

  private static void print(PrintStream out, long start, Stats s) {
    out.printf("[%4.1f s] waiting %3d | claimed %3d | conflicts %2d | polls %2d%s%n", secs(start),
        s.outstanding(), s.claimed(), s.conflicts(), s.polls(),
        s.pollInterval().isZero() ? "" : ", next in " + s.pollInterval().toMillis() + " ms");
  }

  private static double secs(long start) {
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * One pool's pods ({@code pod-0}, {@code pod-1}...) in a fake apiserver: a claim is a
   * compare-and-set of the phase, Idle → Starting, and conflicts at random; the informer cache
   * shows each write {@code lag} late. Thread-safe.
   */
  static final class FakePool implements PoolScheduler.PodApi {
    private record Pod(boolean idle, long changedAt) {}

    final Map<String, Pod> pods = new ConcurrentHashMap<>();
    final Map<String, Integer> claims = new ConcurrentHashMap<>(); // successful, per pod
    final AtomicLong listings = new AtomicLong();
    final AtomicLong claimWrites = new AtomicLong();
    final AtomicLong doubleHandOuts = new AtomicLong(); // what the reservations prevent
    volatile double conflictRate;
    volatile IntConsumer onScaleUp = waiting -> { };
    private final Clock clock;
    private final long lag;
    private final long latencyMillis;
    private final Random random = new Random(1);

    FakePool(Clock clock, Duration lag, Duration latency, double conflictRate) {
      this.clock = clock;
      this.lag = lag.toNanos();
      this.latencyMillis = latency.toMillis();
      this.conflictRate = conflictRate;
    }

    synchronized void addIdle(int n) {
      for (int i = 0, size = pods.size(); i < n; i++) {
        pods.put("pod-" + (size + i), new Pod(true, clock.nanoTime() - lag)); // cached already
      }
    }

    /** The sandbox ended: the pod is Idle again (the cache shows it after the lag). */
    synchronized void recycle(String name) {
      pods.put(name, new Pod(true, clock.nanoTime()));
    }

    @Override
    public synchronized List<String> listIdle() {
      listings.incrementAndGet();
      List<String> idle = new ArrayList<>();
      for (int i = 0; i < pods.size(); i++) {
        Pod pod = pods.get("pod-" + i);
        if (pod.idle() == (clock.nanoTime() - pod.changedAt() >= lag)) { // Idle, or was before
          idle.add("pod-" + i);
        }
      }
      return idle;
    }

    @Override
    public boolean claim(String name, String requestId) throws InterruptedException {
      Thread.sleep(latencyMillis); // the round trip, in real time
      synchronized (this) {
        claimWrites.incrementAndGet();
        if (!pods.get(name).idle()) {
          doubleHandOuts.incrementAndGet();
          return false;
        }
        if (random.nextDouble() < conflictRate) {
          return false;
        }
        pods.put(name, new Pod(false, clock.nanoTime()));
        claims.merge(name, 1, Integer::sum);
        return true;
      }
    }

    @Override
    public void markScaleUpPending(int waiting) {
      onScaleUp.accept(waiting);
    }
  }
}
