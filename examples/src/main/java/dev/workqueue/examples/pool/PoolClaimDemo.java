package dev.workqueue.examples.pool;

import dev.workqueue.clock.Clock;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small simulation of one sandbox pool: callers ask for pods in bursts, a
 * {@link PoolScheduler} claims idle pods for them against a {@link FakeApiServer} that lags,
 * is slow and conflicts now and then; sandboxes end after a while and their pods go back to
 * Idle (the reconciler calls {@code notifyIdle}); when the pool runs dry the scale-up signal
 * makes a fake autoscaler add pods. Prints the scheduler's {@link Snapshot} as it goes and a
 * summary at the end.
 *
 * <p>Time is compressed: sandboxes live 0.3–0.6 s instead of minutes, so the reservation TTL
 * is 250 ms instead of 2 s (still five times the 50 ms informer lag).
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java \
 *     -Ddemo.mainClass=dev.workqueue.examples.pool.PoolClaimDemo -Dexec.args="--requests 600"
 * </pre>
 */
public final class PoolClaimDemo {
  private static final String POOL = "sandbox-pool";

  private PoolClaimDemo() {}

  /** The demo's settings. */
  public record Options(int pods, int requests, double conflictRate, boolean live) {

    /** Parses {@code --pods N --requests N --conflict-rate F --quiet}. */
    public static Options parse(String... args) {
      Options o = new Options(60, 400, 0.2, true);
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (flag.equals("--quiet")) {
          o = new Options(o.pods, o.requests, o.conflictRate, false);
          continue;
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(usage());
        }
        String v = args[++i];
        o = switch (flag) {
          case "--pods" -> new Options(positive(flag, v), o.requests, o.conflictRate, o.live);
          case "--requests" -> new Options(o.pods, positive(flag, v), o.conflictRate, o.live);
          case "--conflict-rate" -> new Options(o.pods, o.requests, fraction(flag, v), o.live);
          default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + usage());
        };
      }
      return o;
    }

    static String usage() {
      return "usage: PoolClaimDemo [--pods N] [--requests N] [--conflict-rate 0..0.9] [--quiet]";
    }

    private static int positive(String flag, String v) {
      int n = Integer.parseInt(v);
      if (n < 1) {
        throw new IllegalArgumentException(flag + " must be at least 1, was " + n);
      }
      return n;
    }

    private static double fraction(String flag, String v) {
      double f = Double.parseDouble(v);
      if (!(f >= 0 && f <= 0.9)) {
        throw new IllegalArgumentException(flag + " must be within [0, 0.9], was " + v);
      }
      return f;
    }
  }

  /** What a run achieved. */
  public record Summary(int requests, long claimed, long timedOut, long shutDown, Snapshot last,
      int podsAtEnd, long doubleHandOuts, long millis) {}

  public static void main(String[] args) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    run(options, System.out);
  }

  /** Runs the simulation; prints progress and the summary to {@code out}. */
  public static Summary run(Options o, PrintStream out) throws Exception {
    long start = System.nanoTime();
    FakeApiServer api = FakeApiServer.builder(Clock.system())
        .informerLag(Duration.ofMillis(50))
        .claimLatency(Duration.ofMillis(1), Duration.ofMillis(5))
        .conflictOnFirstAttempt(o.conflictRate())
        .build();
    api.addIdlePods(POOL, o.pods());
    AtomicInteger podCount = new AtomicInteger(o.pods());
    PoolScheduler scheduler = PoolScheduler.builder(POOL, api)
        .reservationTtl(Duration.ofMillis(250))
        .build();
    // The autoscaler: on a scale-up signal it reads the demand from the snapshot (the signal
    // comes once per episode; the queue length is live) and adds up to half the pool again.
    // The pods are ready at once here, and the reconciler says so.
    api.onScaleUp((pool, waiting) -> {
      int more = Math.max(1, Math.min(scheduler.snapshot().queueLen(), o.pods() / 2));
      api.addIdlePods(pool, more);
      podCount.addAndGet(more);
      scheduler.notifyIdle();
    });
    ScheduledExecutorService sandboxes = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "demo-sandboxes");
      t.setDaemon(true);
      return t;
    });
    scheduler.start();

    List<ClaimRequest> requests = new ArrayList<>();
    Thread callers = new Thread(() -> arrive(o, scheduler, api, sandboxes, requests), "demo-callers");
    callers.start();
    long lastLine = 0;
    while (callers.isAlive() || !allDone(requests)) {
      if (o.live() && System.nanoTime() - lastLine >= 500_000_000L) {
        out.println(scheduler.snapshot().summary());
        lastLine = System.nanoTime();
      }
      Thread.sleep(20);
    }
    Snapshot last = scheduler.snapshot();
    scheduler.shutdown(Duration.ofSeconds(5));
    sandboxes.shutdownNow();
    sandboxes.awaitTermination(5, TimeUnit.SECONDS);

    long timedOut = 0;
    long shutDown = 0;
    for (ClaimRequest r : requests) {
      try {
        r.result().join();
      } catch (CompletionException e) {
        ClaimException.Reason why = ((ClaimException) e.getCause()).reason();
        timedOut += why == ClaimException.Reason.TIMED_OUT ? 1 : 0;
        shutDown += why == ClaimException.Reason.SHUT_DOWN ? 1 : 0;
      }
    }
    Summary s = new Summary(requests.size(), last.claimed(), timedOut, shutDown, last,
        podCount.get(), api.unexpectedPhaseAttempts(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    out.println(last.summary());
    out.printf("claimed %d/%d requests in %d ms (timed out %d); pods %d -> %d after %d scale-up"
        + " signal(s)%n", s.claimed(), s.requests(), s.millis(), s.timedOut(), o.pods(),
        s.podsAtEnd(), last.scaleUps());
    out.printf("claim writes %d: %d conflicts retried, %d on a pod already taken"
        + " (a double hand-out; the reservations keep this at 0)%n",
        api.claimAttempts(), last.conflicts(), s.doubleHandOuts());
    return s;
  }

  /** Callers: requests arrive in bursts of 10–40, a few milliseconds apart. */
  private static void arrive(Options o, PoolScheduler scheduler, FakeApiServer api,
      ScheduledExecutorService sandboxes, List<ClaimRequest> requests) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    try {
      for (int i = 0; i < o.requests(); ) {
        int burst = Math.min(10 + random.nextInt(31), o.requests() - i);
        for (int b = 0; b < burst; b++, i++) {
          ClaimRequest r = ClaimRequest.withTimeout("req-" + i, Duration.ofSeconds(10));
          while (!scheduler.enqueue(r)) {
            Thread.sleep(1); // backpressure: the caller would answer 429; here we wait
          }
          synchronized (requests) {
            requests.add(r);
          }
          // The sandbox runs for a while, then its pod is reset to Idle.
          r.result().thenAccept(claim -> sandboxes.schedule(() -> {
            api.recycle(claim.pod().name());
            scheduler.notifyIdle();
          }, 300 + ThreadLocalRandom.current().nextInt(300), TimeUnit.MILLISECONDS));
        }
        Thread.sleep(5 + random.nextInt(20));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean allDone(List<ClaimRequest> requests) {
    synchronized (requests) {
      return requests.stream().allMatch(ClaimRequest::isDone);
    }
  }
}
