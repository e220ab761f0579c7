package dev.workqueue.examples;

import dev.workqueue.controller.ControllerStatus;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the {@link Demo} prints, as plain lines (the same on a terminal, in a file, in CI):
 * each line starts with the time since the start and a kind, {@code event}, {@code reconcile},
 * {@code retry} or {@code progress}, then a summary. Every event, successful reconcile and
 * retry of the followed keys is printed; of the other keys only the first few retries at each
 * attempt number, so the output stays short at any scale; the progress lines count
 * everything. With {@code quiet}
 * only the summary is printed.
 */
final class DemoLog {
  /**
   * Retries of keys not followed that are printed, per attempt number (so the doubling shows:
   * 5 ms at attempt 1, 10 ms at 2, ...); the rest are only counted.
   */
  static final int SAMPLED_RETRIES_PER_ATTEMPT = 3;

  private final PrintStream out;
  private final boolean quiet;
  private final Set<String> followed;
  private final Map<Integer, AtomicInteger> sampledRetries = new ConcurrentHashMap<>();
  private final AtomicBoolean toldOfUnprinted = new AtomicBoolean();
  private volatile long start = System.nanoTime();

  DemoLog(PrintStream out, boolean quiet, Set<String> followed) {
    this.out = out;
    this.quiet = quiet;
    this.followed = Set.copyOf(followed);
  }

  boolean follows(String key) {
    return !quiet && followed.contains(key);
  }

  /** The times of the lines count from here: the demo's start. */
  long startClock() {
    start = System.nanoTime();
    return start;
  }

  /** Prints what the demo does and what it prints. */
  void header(Demo.Options o) {
    if (quiet) {
      return;
    }
    out.printf("demo: %d objects, %d events each (a create, then updates): %d events in"
        + " bursts; %d workers; the backend fails %.0f%% of reconciles%n", o.objects(),
        o.updatesPerObject(), o.objects() * o.updatesPerObject(), o.workers(),
        100 * o.failureRate());
    String flaky = o.failureRate() > 0 ? String.format(" (%s fails its first %d attempts and"
        + " then succeeds, to show the back-off)", Demo.FLAKY, Demo.FLAKY_FAILURES) : "";
    out.printf("printed: every event, reconcile and retry of %s%s; of the other keys, the first"
        + " %d retries at each attempt number; a progress line every 250 ms (after 2 s, every"
        + " second)%n", String.join(" and ", followed.stream().sorted().toList()), flaky,
        SAMPLED_RETRIES_PER_ATTEMPT);
  }

  /** An event of a followed key and what the queue did with it. */
  void event(String key, int generation, boolean queued, boolean reconciling) {
    String what = generation == 1 ? "create" : "update";
    String outcome = !queued
        ? "merged: the key is already queued, one reconcile will cover both"
        : reconciling
            ? "added again: the key is being reconciled, so it runs once more after that"
            : "added: the key was not queued";
    line("event", key, what + " (generation " + generation + ") -> " + outcome);
  }

  /** A followed key's successful reconcile. */
  void reconciled(String key, int generation, int attempt) {
    line("reconcile", key, "applied generation " + generation + " (attempt " + attempt + ")"
        + (attempt > 1 ? "; its back-off is forgotten" : ""));
  }

  /** A failed reconcile and the back-off before its retry ({@link ExplainedRateLimiter}). */
  void backOff(String key, int failures, Duration delay, Duration perKey, Duration overall) {
    if (quiet) {
      return;
    }
    if (!followed.contains(key) && sampledRetries.computeIfAbsent(failures,
        n -> new AtomicInteger()).incrementAndGet() > SAMPLED_RETRIES_PER_ATTEMPT) {
      if (!toldOfUnprinted.getAndSet(true)) {
        line("retry", "...", "other keys' retries past " + SAMPLED_RETRIES_PER_ATTEMPT
            + " per attempt number: counted in the progress lines, not printed");
      }
      return;
    }
    String why = overall.compareTo(perKey) > 0
        ? "the overall limit: 10 retries/s after a burst of 100; the key's back-off is "
            + millis(perKey)
        : "the key's back-off";
    line("retry", key, "failed (attempt " + failures + "); retry in " + millis(delay) + " ("
        + why + ")");
  }

  void progress(long events, long added, long reconciles, long failed, long retries,
      ControllerStatus s) {
    if (quiet) {
      return;
    }
    line("progress", "", String.format("events %d = added %d + merged %d | reconciles %d"
        + " (%d failed) | retries %d | queue now: %d ready, %d backing off, %d reconciling",
        events, added, events - added, reconciles, failed, retries, s.queued(), s.waiting(),
        s.busyWorkers()));
  }

  void summary(Demo.Summary s, RecordingMetricsProvider m) {
    out.printf("converged %d/%d objects in %d ms: each object's latest generation is"
        + " applied%n", s.converged(), s.objects(), s.convergence().toMillis());
    row("events", s.events(), "object changes the informer delivered, each an add of its key");
    row("added", s.added(), "events that put their key on the queue (not queued yet)");
    row("merged", s.merged(), "events whose key was already queued: no extra reconcile");
    row("reconciles", s.reconciles(), String.format("%d succeeded + %d failed"
        + " (controller_runtime_reconcile_total)", s.reconciles() - s.failures(),
        s.failures()));
    row("retries", s.queueRetries(), "failed reconciles queued again after a back-off"
        + " (workqueue_retries_total)");
    row("queue adds", s.queueAdds(), String.format("%d by events + %d by retries whose"
        + " back-off ended; one reconcile each (workqueue_adds_total)", s.added(),
        s.queueAdds() - s.added()));
    out.printf("  %-10s %6s  %s%n", "dropped", "-",
        "none: no maxRetries is set, so a failing key is retried until it succeeds");
    for (String metric : java.util.List.of(MetricsProvider.QUEUE_DURATION,
        MetricsProvider.WORK_DURATION)) {
      out.printf("  %-34s p50 %7.2f ms  p90 %7.2f ms  p99 %7.2f ms%n", metric,
          1000 * m.quantile("demo", metric, 0.5), 1000 * m.quantile("demo", metric, 0.9),
          1000 * m.quantile("demo", metric, 0.99));
    }
  }

  private void row(String name, long n, String meaning) {
    out.printf("  %-10s %6d  %s%n", name, n, meaning);
  }

  /** One line; synchronized so that lines from several threads come out in time order. */
  private synchronized void line(String kind, String key, String text) {
    long ms = (System.nanoTime() - start) / 1_000_000;
    out.printf("%6d ms  %-9s  %-17s %s%n", ms, kind, key, text);
  }

  private static String millis(Duration d) {
    return d.toMillis() < 10_000 ? d.toMillis() + " ms" : d.toSeconds() + " s";
  }
}
