package dev.workqueue.examples;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.metrics.RecordingMetricsProvider;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The main demo: a controller converging a set of simulated objects against a flaky backend.
 *
 * <p>An informer-like source emits create and update events for {@code --objects} objects
 * (each change bumps the object's desired generation) and turns every event into a key
 * {@code namespace/name} on the controller's rate-limiting queue. {@code --workers} workers
 * reconcile: they read the object's desired generation and apply it to a backend that is slow
 * now and then and fails {@code --failure-rate} of the time; a failure is retried with the
 * default controller back-off (5 ms doubling per failure, 10 retries per second overall after
 * a burst of 100). A live line shows progress; at the end the queue and controller metrics.
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java -Dexec.args="--objects 500 --workers 8"
 * </pre>
 */
public final class Demo {
  private Demo() {}

  /** The demo's settings; {@link #parse} reads them from the command line. */
  public record Options(int objects, int updatesPerObject, int workers, double failureRate,
      double slowRate, long seed, boolean live) {

    static Options defaults() {
      return new Options(200, 3, 4, 0.2, 0.05, 1, true);
    }

    /** Parses {@code --objects N --updates N --workers N --failure-rate F --slow-rate F --seed N --quiet}. */
    public static Options parse(String... args) {
      Options o = defaults();
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (flag.equals("--quiet")) {
          o = new Options(o.objects, o.updatesPerObject, o.workers, o.failureRate, o.slowRate, o.seed, false);
          continue;
        }
        if (flag.equals("--help") || i + 1 >= args.length) {
          throw new IllegalArgumentException(usage());
        }
        String v = args[++i];
        o = switch (flag) {
          case "--objects" -> new Options(positive(flag, v), o.updatesPerObject, o.workers, o.failureRate, o.slowRate, o.seed, o.live);
          case "--updates" -> new Options(o.objects, positive(flag, v), o.workers, o.failureRate, o.slowRate, o.seed, o.live);
          case "--workers" -> new Options(o.objects, o.updatesPerObject, positive(flag, v), o.failureRate, o.slowRate, o.seed, o.live);
          case "--failure-rate" -> new Options(o.objects, o.updatesPerObject, o.workers, fraction(flag, v), o.slowRate, o.seed, o.live);
          case "--slow-rate" -> new Options(o.objects, o.updatesPerObject, o.workers, o.failureRate, fraction(flag, v), o.seed, o.live);
          case "--seed" -> new Options(o.objects, o.updatesPerObject, o.workers, o.failureRate, o.slowRate, Long.parseLong(v), o.live);
          default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + usage());
        };
      }
      return o;
    }

    static String usage() {
      return "usage: Demo [--objects N] [--updates N] [--workers N] [--failure-rate 0..0.9]"
          + " [--slow-rate 0..1] [--seed N] [--quiet]";
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

  /** What a run achieved, for the summary and for tests. */
  public record Summary(int objects, int converged, long reconciles, long failures,
      long queueAdds, long queueRetries, Duration convergence) {}

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

  /** Runs the demo; prints progress and the summary to {@code out}. */
  public static Summary run(Options o, PrintStream out) throws Exception {
    Map<String, Integer> desired = new ConcurrentHashMap<>(); // the "API server"
    Map<String, Integer> applied = new ConcurrentHashMap<>(); // the backend's state
    AtomicInteger failures = new AtomicInteger();
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();

    Controller<String> controller = Controller.<String>builder("demo")
        .workers(o.workers())
        .queueMetricsProvider(metrics)
        .metricsProvider(metrics)
        .reconciler(key -> {
          Integer want = desired.get(key);
          ThreadLocalRandom random = ThreadLocalRandom.current();
          Thread.sleep(random.nextDouble() < o.slowRate() ? 20 + random.nextInt(30) : 1 + random.nextInt(3));
          if (random.nextDouble() < o.failureRate()) {
            failures.incrementAndGet();
            throw new IllegalStateException("backend unavailable for " + key);
          }
          applied.put(key, want);
          return Result.success();
        })
        .build();

    long start = System.nanoTime();
    controller.start();
    Thread informer = new Thread(() -> emitEvents(o, desired, controller), "demo-informer");
    informer.start();

    Progress progress = new Progress(out, o.live());
    while (informer.isAlive() || converged(desired, applied) < o.objects()) {
      progress.show(converged(desired, applied), o.objects(), metrics);
      Thread.sleep(100);
    }
    Duration convergence = Duration.ofNanos(System.nanoTime() - start);
    progress.show(converged(desired, applied), o.objects(), metrics);
    progress.end();
    controller.stop(Duration.ofSeconds(10));

    Summary summary = new Summary(o.objects(), converged(desired, applied),
        metrics.observations("demo", ControllerMetricsProvider.RECONCILE_TIME).size(),
        failures.get(), metrics.count("demo", MetricsProvider.ADDS),
        metrics.count("demo", MetricsProvider.RETRIES), convergence);
    printSummary(out, summary, metrics);
    return summary;
  }

  /** The informer: every object is created, then updated a few times, in random order. */
  private static void emitEvents(Options o, Map<String, Integer> desired, Controller<String> c) {
    Random random = new Random(o.seed());
    List<String> keys = new java.util.ArrayList<>();
    for (int i = 0; i < o.objects(); i++) {
      keys.add("default/object-" + i);
    }
    for (int round = 0; round < o.updatesPerObject(); round++) {
      java.util.Collections.shuffle(keys, random);
      for (String key : keys) {
        desired.merge(key, 1, Integer::sum); // create or update: a new generation
        c.add(key);
        if (random.nextInt(20) == 0) {
          try {
            Thread.sleep(1); // events arrive in bursts, not all at once
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
    }
  }

  private static int converged(Map<String, Integer> desired, Map<String, Integer> applied) {
    int n = 0;
    for (Map.Entry<String, Integer> e : desired.entrySet()) {
      if (e.getValue().equals(applied.get(e.getKey()))) {
        n++;
      }
    }
    return n;
  }

  private static void printSummary(PrintStream out, Summary s, RecordingMetricsProvider m) {
    out.printf("converged %d/%d objects in %d ms%n", s.converged(), s.objects(),
        s.convergence().toMillis());
    out.printf("reconciles %d (failed %d); queue adds %d, retries %d%n",
        s.reconciles(), s.failures(), s.queueAdds(), s.queueRetries());
    for (String metric : List.of(MetricsProvider.QUEUE_DURATION, MetricsProvider.WORK_DURATION)) {
      out.printf("%-34s p50 %7.2f ms  p90 %7.2f ms  p99 %7.2f ms%n", metric,
          1000 * m.quantile("demo", metric, 0.5), 1000 * m.quantile("demo", metric, 0.9),
          1000 * m.quantile("demo", metric, 0.99));
    }
  }

  /** One live line, rewritten in place on a terminal; a line a second otherwise. */
  private static final class Progress {
    private final PrintStream out;
    private final boolean live;
    private final boolean terminal = System.console() != null;
    private long lastPrinted;

    Progress(PrintStream out, boolean live) {
      this.out = out;
      this.live = live;
    }

    void show(int converged, int objects, RecordingMetricsProvider m) {
      if (!live) {
        return;
      }
      String line = String.format("converged %4d/%d | queue depth %4.0f | retries %5d | in flight %2.0f",
          converged, objects, m.value("demo", MetricsProvider.DEPTH),
          m.count("demo", MetricsProvider.RETRIES),
          m.value("demo", ControllerMetricsProvider.ACTIVE_WORKERS));
      long now = System.nanoTime();
      if (terminal) {
        out.print("\r" + line);
        out.flush();
      } else if (now - lastPrinted >= 1_000_000_000L) {
        out.println(line);
        lastPrinted = now;
      }
    }

    void end() {
      if (live && terminal) {
        out.println();
      }
    }
  }
}
