package dev.workqueue.examples;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.metrics.micrometer.MicrometerMetricsProvider;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
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
 * With {@code --metrics-port N} (0: a free port) the same metrics are also served in the
 * Prometheus text format on {@code http://127.0.0.1:N/metrics} through
 * {@code MicrometerMetricsProvider}; {@code --linger} keeps serving after convergence until
 * Ctrl-C.
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java -Dexec.args="--objects 500 --workers 8"
 * mvn -B -q -pl examples -am -DskipTests package exec:java -Dexec.args="--metrics-port 9090 --linger"
 * </pre>
 */
public final class Demo {
  private Demo() {}

  /**
   * The demo's settings; {@link #parse} reads them from the command line. {@code metricsPort}
   * is -1 for no metrics endpoint, 0 for a free port; {@code linger} keeps serving metrics
   * after convergence until the demo is interrupted.
   */
  public record Options(int objects, int updatesPerObject, int workers, double failureRate,
      double slowRate, long seed, boolean live, int metricsPort, boolean linger) {

    static Options defaults() {
      return new Options(200, 3, 4, 0.2, 0.05, 1, true, -1, false);
    }

    /**
     * Parses {@code --objects N --updates N --workers N --failure-rate F --slow-rate F --seed N
     * --quiet --metrics-port N --linger}.
     */
    public static Options parse(String... args) {
      Options d = defaults();
      int objects = d.objects;
      int updates = d.updatesPerObject;
      int workers = d.workers;
      double failureRate = d.failureRate;
      double slowRate = d.slowRate;
      long seed = d.seed;
      boolean live = d.live;
      int metricsPort = d.metricsPort;
      boolean linger = d.linger;
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (flag.equals("--quiet")) {
          live = false;
          continue;
        }
        if (flag.equals("--linger")) {
          linger = true;
          continue;
        }
        if (flag.equals("--help") || i + 1 >= args.length) {
          throw new IllegalArgumentException(usage());
        }
        String v = args[++i];
        switch (flag) {
          case "--objects" -> objects = positive(flag, v);
          case "--updates" -> updates = positive(flag, v);
          case "--workers" -> workers = positive(flag, v);
          case "--failure-rate" -> failureRate = fraction(flag, v);
          case "--slow-rate" -> slowRate = fraction(flag, v);
          case "--seed" -> seed = Long.parseLong(v);
          case "--metrics-port" -> metricsPort = port(flag, v);
          default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + usage());
        }
      }
      if (linger && metricsPort < 0) {
        throw new IllegalArgumentException("--linger needs --metrics-port\n" + usage());
      }
      return new Options(objects, updates, workers, failureRate, slowRate, seed, live,
          metricsPort, linger);
    }

    static String usage() {
      return "usage: Demo [--objects N] [--updates N] [--workers N] [--failure-rate 0..0.9]"
          + " [--slow-rate 0..1] [--seed N] [--quiet] [--metrics-port N [--linger]]";
    }

    private static int positive(String flag, String v) {
      int n = Integer.parseInt(v);
      if (n < 1) {
        throw new IllegalArgumentException(flag + " must be at least 1, was " + n);
      }
      return n;
    }

    private static int port(String flag, String v) {
      int n = Integer.parseInt(v);
      if (n < 0 || n > 65535) {
        throw new IllegalArgumentException(flag + " must be within [0, 65535], was " + n);
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

  /**
   * Runs the demo; prints progress and the summary to {@code out}. With a metrics port it also
   * serves the queue and controller metrics on {@code http://127.0.0.1:PORT/metrics} while it
   * runs (and, with {@code linger}, after convergence until the calling thread is interrupted);
   * the endpoint is stopped before this returns.
   */
  public static Summary run(Options o, PrintStream out) throws Exception {
    RecordingMetricsProvider recording = new RecordingMetricsProvider();
    if (o.metricsPort() < 0) {
      return run(o, out, recording, recording, null);
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    TeeMetricsProvider both =
        TeeMetricsProvider.of(recording, MicrometerMetricsProvider.create(registry));
    try (LoopbackEndpoint endpoint = LoopbackEndpoint.metrics(o.metricsPort(), registry::scrape)) {
      out.println("metrics: " + endpoint.uri("/metrics"));
      return run(o, out, recording, both, endpoint);
    }
  }

  /** The demo itself: {@code providers} record everything, {@code metrics} is read back. */
  private static <P extends MetricsProvider & ControllerMetricsProvider> Summary run(Options o,
      PrintStream out, RecordingMetricsProvider metrics, P providers, LoopbackEndpoint endpoint)
      throws Exception {
    Map<String, Integer> desired = new ConcurrentHashMap<>(); // the "API server"
    Map<String, Integer> applied = new ConcurrentHashMap<>(); // the backend's state
    AtomicInteger failures = new AtomicInteger();

    Controller<String> controller = Controller.<String>builder("demo")
        .workers(o.workers())
        .queueMetricsProvider(providers)
        .metricsProvider(providers)
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
    if (o.linger() && endpoint != null) {
      out.println("serving " + endpoint.uri("/metrics") + " until interrupted (Ctrl-C)");
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the caller's signal to stop: keep it set
      }
    }
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
