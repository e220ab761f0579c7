package dev.workqueue.kubernetes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The text of a {@code /healthz} or {@code /readyz} answer: one line a health source, {@code
 * [+]name ok} or {@code [-]name: reason; reason}, then {@code healthz check passed} or {@code
 * ... failed}, as the Kubernetes API server's own verbose probes read. The reasons follow
 * {@link Health#isLive()} and {@link Health#isReady()} term by term, so a source is reported
 * failing exactly when its {@code Health} says so.
 */
final class ProbeReport {
  /**
   * A reason is cut to this many characters: enough for a fabric8 failure's URL and the API
   * server's message after it ("Message: Forbidden"), short enough for a probe's log line.
   */
  static final int MAX_REASON = 500;

  /** Which probe a report answers. */
  enum Probe {
    LIVENESS("healthz"),
    READINESS("readyz");

    final String path;

    Probe(String path) {
      this.path = path;
    }
  }

  /** A report: whether every source passed, and its text. */
  record Result(boolean passed, String text) {}

  private ProbeReport() {}

  /** Checks each source's health (in the map's order) for {@code probe}. */
  static Result of(Probe probe, Map<String, Health> healths) {
    StringBuilder text = new StringBuilder();
    boolean passed = true;
    for (Map.Entry<String, Health> e : healths.entrySet()) {
      List<String> reasons = probe == Probe.LIVENESS ? notLive(e.getValue())
          : notReady(e.getValue());
      if (reasons.isEmpty()) {
        text.append("[+]").append(e.getKey()).append(" ok\n");
      } else {
        passed = false;
        text.append("[-]").append(e.getKey()).append(": ")
            .append(String.join("; ", reasons)).append('\n');
      }
    }
    text.append(probe.path).append(passed ? " check passed\n" : " check failed\n");
    return new Result(passed, text.toString());
  }

  /** Why {@code h} is not live; empty iff {@link Health#isLive()}. */
  static List<String> notLive(Health h) {
    List<String> reasons = new ArrayList<>();
    h.failure().ifPresent(f -> reasons.add("failed: " + oneLine(f)));
    if (!h.workers().workersAlive()) {
      reasons.add("workers died: " + h.workers().liveWorkers() + " of "
          + h.workers().configuredWorkers() + " alive");
    }
    if (reasons.isEmpty() && !h.isLive()) {
      reasons.add("not live"); // a term Health gained and this class does not know yet
    }
    return reasons;
  }

  /** Why {@code h} is not ready; empty iff {@link Health#isReady()}. */
  static List<String> notReady(Health h) {
    List<String> reasons = new ArrayList<>(notLive(h));
    if (!h.cachesSynced()) {
      reasons.add("caches not synced");
    }
    for (Health.Watch w : h.watches()) {
      if (!w.state().ready()) {
        reasons.add(watch(w));
      }
    }
    if (h.leadership() == Health.Leadership.SHARD_MEMBER_CUT_OFF) {
      reasons.add("cut off from its shard Lease");
    }
    if (reasons.isEmpty() && !h.isReady()) {
      reasons.add("not ready");
    }
    return reasons;
  }

  private static String watch(Health.Watch w) {
    StringBuilder s = new StringBuilder("watch of ").append(w.type()).append(' ')
        .append(w.state());
    if (!w.notWatchingFor().isZero()) {
      s.append(" for ").append(seconds(w.notWatchingFor()));
    }
    Optional<String> error = w.error();
    error.ifPresent(e -> s.append(": ").append(oneLine(e)));
    return s.toString();
  }

  private static String seconds(Duration d) {
    long millis = d.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + "s"
        : String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
  }

  /** {@code s} on one line, cut to {@link #MAX_REASON} characters. */
  static String oneLine(String s) {
    String line = s.replaceAll("\\s+", " ").trim();
    return line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON - 3) + "...";
  }
}
