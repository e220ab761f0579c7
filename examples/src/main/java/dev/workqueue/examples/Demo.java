package dev.workqueue.examples;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.ControllerStatus;
import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.ManagementServer;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.metrics.micrometer.MicrometerMetricsProvider;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintStream;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The main demo: a controller converging a set of simulated objects against a flaky backend,
 * told line by line so that its output teaches what the queue and the controller do.
 *
 * <p>An informer-like source emits create and update events for {@code --objects} objects
 * (each change bumps the object's desired generation) and turns every event into an add of
 * the key {@code namespace/name} to the controller's rate-limiting queue, in bursts faster
 * than the workers reconcile. So many events find their key still queued and are merged into
 * it (the queue's dedup: a queued key is there once), and an event for a key being reconciled
 * queues it once more, to run after that reconcile. {@code --workers} workers reconcile: they
 * read the object's desired generation and apply it to a backend that is slow now and then and
 * fails {@code --failure-rate} of the time; a failure is retried after the default controller
 * back-off (5 ms doubling per failure per key, and 10 retries per second overall after a burst
 * of 100), told by {@link ExplainedRateLimiter} as it happens.
 *
 * <p>The output ({@link DemoLog}) is plain lines, the same on a terminal, in a file or in CI:
 * every event, reconcile and retry of two followed keys, the first few retries of the others,
 * a progress line every 250 ms (every second after 2 s), and a summary that adds up: events =
 * added + merged, queue adds = added + adds by retries = reconciles. {@code --quiet} prints
 * only the summary. With {@code --metrics-port N} (0: a free port) the same metrics are also
 * served in the Prometheus text format on {@code http://127.0.0.1:N/metrics} through
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
        if (flag.equals("--help")) {
          throw new Flags.Help(usage(), HELP);
        }
        if (i + 1 >= args.length) {
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

    static final String HELP = String.join("\n",
        "  --objects N             objects the informer creates (default 200)",
        "  --updates N             events per object: a create, then updates (default 3)",
        "  --workers N             reconcile workers (default 4)",
        "  --failure-rate 0..0.9   share of reconciles the backend fails (default 0.2)",
        "  --slow-rate 0..0.9      share of reconciles the backend is slow for (default 0.05)",
        "  --seed N                the events' order and the failures (default 1)",
        "  --quiet                 print only the summary",
        "  --metrics-port N        serve the metrics on http://127.0.0.1:N/metrics"
            + " (0: a free port; default none)",
        "  --linger                with --metrics-port: keep serving after convergence until"
            + " Ctrl-C");

    static String usage() {
      return "usage: Demo [--objects N] [--updates N] [--workers N] [--failure-rate 0..0.9]"
          + " [--slow-rate 0..0.9] [--seed N] [--quiet] [--metrics-port N [--linger]]";
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

  /**
   * What a run achieved, for the summary and for tests: the events the informer delivered,
   * how many of them {@code added} their key to the queue (the rest were merged into a queued
   * key), the queue's adds (by events and by retries) and retries, and the reconciles.
   */
  public record Summary(int objects, int converged, long events, long added, long queueAdds,
      long reconciles, long failures, long queueRetries, Duration convergence) {

    /** Events whose key was already queued: the queue's dedup. */
    public long merged() {
      return events - added;
    }
  }

  /**
   * A followed key whose first {@link #FLAKY_FAILURES} reconciles fail and the next succeeds
   * (when the backend fails at all), so that every run shows a key's back-off growing: 5, 10,
   * 20 ms, then forgotten.
   */
  static final String FLAKY = key(0);

  static final int FLAKY_FAILURES = 3;

  /**
   * How often a progress line is printed: every 250 ms in the first 2 s (the default run ends
   * well within them), then every second, so that a long run (a high failure rate keeps keys
   * waiting on the overall limit) prints a few lines a second at most.
   */
  static Duration progressPeriod(Duration sinceStart) {
    return sinceStart.compareTo(Duration.ofSeconds(2)) < 0
        ? Duration.ofMillis(250) : Duration.ofSeconds(1);
  }

  public static void main(String[] args) throws Exception {
    Options options = Flags.orExit(() -> Options.parse(args));
    run(options, System.out);
  }

  /**
   * Runs the demo; prints its lines and the summary to {@code out}. With a metrics port it also
   * serves the queue and controller metrics on {@code http://127.0.0.1:PORT/metrics} while it
   * runs (and, with {@code linger}, after convergence until the calling thread is interrupted);
   * the endpoint is stopped before this returns.
   */
  public static Summary run(Options o, PrintStream out) throws Exception {
    RecordingMetricsProvider recording = new RecordingMetricsProvider();
    AddOutcome addOutcome = new AddOutcome();
    TeeMetricsProvider providers = TeeMetricsProvider.ofQueues(recording, addOutcome);
    if (o.metricsPort() < 0) {
      return run(o, out, recording, addOutcome, providers, null);
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    TeeMetricsProvider all = TeeMetricsProvider.of(providers,
        MicrometerMetricsProvider.create(registry));
    try (ManagementServer endpoint = ManagementServer.builder().metrics(registry::scrape)
        .port(o.metricsPort()).bindAddress(InetAddress.getLoopbackAddress()).start()) {
      out.println("metrics: " + metricsUri(endpoint));
      return run(o, out, recording, addOutcome, all, endpoint);
    }
  }

  private static String metricsUri(ManagementServer endpoint) {
    return "http://127.0.0.1:" + endpoint.port() + "/metrics";
  }

  /**
   * The demo itself: {@code providers} record everything, {@code metrics} is read back and
   * {@code addOutcome} tells the informer whether each of its adds queued its key.
   */
  private static Summary run(Options o, PrintStream out, RecordingMetricsProvider metrics,
      AddOutcome addOutcome, TeeMetricsProvider providers, ManagementServer endpoint)
      throws Exception {
    Map<String, Integer> desired = new ConcurrentHashMap<>(); // the "API server"
    Map<String, Integer> applied = new ConcurrentHashMap<>(); // the backend's state
    Set<String> reconciling = ConcurrentHashMap.newKeySet(); // of the followed keys
    DemoLog log = new DemoLog(out, !o.live(),
        Set.copyOf(List.of(FLAKY, key(Math.min(1, o.objects() - 1)))));

    Controller<String> controller = Controller.<String>builder("demo")
        .workers(o.workers())
        .queueMetricsProvider(providers)
        .metricsProvider(providers)
        .rateLimiter(new ExplainedRateLimiter<String>(log::backOff))
        .reconciler((key, context) -> {
          boolean followed = log.follows(key);
          if (followed) {
            reconciling.add(key);
          }
          try {
            Integer want = desired.get(key);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            boolean slow = random.nextDouble() < o.slowRate();
            Thread.sleep(slow ? 20 + random.nextInt(30) : 1 + random.nextInt(3));
            boolean fails = key.equals(FLAKY) && o.failureRate() > 0
                ? context.attempt() <= FLAKY_FAILURES // scripted: the back-off, every run
                : random.nextDouble() < o.failureRate();
            if (fails) {
              throw new IllegalStateException("backend unavailable for " + key);
            }
            applied.put(key, want);
            if (followed) {
              log.reconciled(key, want, context.attempt());
            }
            return Result.success();
          } finally {
            reconciling.remove(key);
          }
        })
        .build();

    log.header(o);
    long start = log.startClock();
    controller.start();
    Informer informer = new Informer(o, desired, controller, addOutcome, log, reconciling);
    Thread informerThread = new Thread(informer, "demo-informer");
    informerThread.start();

    long lastProgress = System.nanoTime();
    long convergedAt = 0;
    while (true) {
      boolean eventsDone = !informerThread.isAlive();
      boolean converged = eventsDone && converged(desired, applied) == o.objects();
      if (converged && convergedAt == 0) {
        convergedAt = System.nanoTime();
      }
      if (converged && idle(controller, metrics)) {
        break;
      }
      long now = System.nanoTime();
      if (now - lastProgress >= progressPeriod(Duration.ofNanos(now - start)).toNanos()) {
        progress(log, informer, metrics, controller);
        lastProgress = System.nanoTime();
      }
      Thread.sleep(10);
    }
    progress(log, informer, metrics, controller);
    controller.stop(Duration.ofSeconds(10));

    Summary summary = new Summary(o.objects(), converged(desired, applied), informer.events(),
        informer.added(), metrics.count("demo", MetricsProvider.ADDS), reconciles(metrics),
        metrics.count("demo", ControllerMetricsProvider.RECONCILE_ERRORS),
        metrics.count("demo", MetricsProvider.RETRIES), Duration.ofNanos(convergedAt - start));
    log.summary(summary, metrics);
    if (o.linger() && endpoint != null) {
      out.println("serving " + metricsUri(endpoint) + " until interrupted (Ctrl-C)");
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the caller's signal to stop: keep it set
      }
    }
    return summary;
  }

  static String key(int i) {
    return "default/object-" + i;
  }

  /** Reconciles that ended, whatever their outcome. */
  private static long reconciles(RecordingMetricsProvider m) {
    String total = ControllerMetricsProvider.RECONCILE_TOTAL;
    return m.count("demo", total + "{result=" + ControllerMetricsProvider.SUCCESS + "}")
        + m.count("demo", total + "{result=" + ControllerMetricsProvider.ERROR + "}");
  }

  /**
   * Nothing queued, waiting out a back-off or being reconciled, and every queue add
   * reconciled: after convergence a retry may still be waiting (its key was applied by a later
   * event's reconcile), and the demo lets it run so that the counts add up.
   */
  private static boolean idle(Controller<String> c, RecordingMetricsProvider m) {
    ControllerStatus s = c.status();
    return s.queued() == 0 && s.waiting() == 0 && s.busyWorkers() == 0
        && reconciles(m) == m.count("demo", MetricsProvider.ADDS);
  }

  private static void progress(DemoLog log, Informer informer, RecordingMetricsProvider m,
      Controller<String> c) {
    log.progress(informer.events(), informer.added(), reconciles(m),
        m.count("demo", ControllerMetricsProvider.RECONCILE_ERRORS),
        m.count("demo", MetricsProvider.RETRIES), c.status());
  }

  /**
   * The informer: every object is created, then updated a few times, in random order, in
   * bursts faster than the workers reconcile; each event adds its key to the controller.
   */
  private static final class Informer implements Runnable {
    private final Options o;
    private final Map<String, Integer> desired;
    private final Controller<String> controller;
    private final AddOutcome addOutcome;
    private final DemoLog log;
    private final Set<String> reconciling;
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong added = new AtomicLong();

    Informer(Options o, Map<String, Integer> desired, Controller<String> controller,
        AddOutcome addOutcome, DemoLog log, Set<String> reconciling) {
      this.o = o;
      this.desired = desired;
      this.controller = controller;
      this.addOutcome = addOutcome;
      this.log = log;
      this.reconciling = reconciling;
    }

    long events() {
      return events.get();
    }

    long added() {
      return added.get();
    }

    @Override
    public void run() {
      Random random = new Random(o.seed());
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < o.objects(); i++) {
        keys.add(key(i));
      }
      for (int round = 0; round < o.updatesPerObject(); round++) {
        Collections.shuffle(keys, random);
        for (String key : keys) {
          int generation = desired.merge(key, 1, Integer::sum); // create or update
          boolean wasReconciling = reconciling.contains(key);
          boolean queued = addOutcome.queued(() -> controller.add(key));
          if (queued) {
            added.incrementAndGet();
          }
          events.incrementAndGet();
          if (log.follows(key)) {
            log.event(key, generation, queued, wasReconciling);
          }
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
}
