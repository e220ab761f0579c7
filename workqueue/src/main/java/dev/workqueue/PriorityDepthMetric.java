package dev.workqueue;

import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.MetricsProvider;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code workqueue_depth} by priority for a named priority queue: the dirty items (ready, or
 * re-added while processing) of each priority. The first {@value #MAX_LABELS} distinct
 * priorities get a label of their own (the number); every later one is counted under
 * {@link MetricsProvider#PRIORITY_OVERFLOW}, so a caller that uses, say, timestamps as
 * priorities cannot blow up the number of time series. Labels once given are kept.
 *
 * <p>Each gauge is set from a count the queue keeps under its lock, never incremented or
 * decremented on the gauge itself, so it cannot go negative or drift. Called under the queue's
 * lock; not thread-safe otherwise.
 */
final class PriorityDepthMetric {
  /** As controller-runtime's {@code maxRecommendedUniquePriorities}. */
  static final int MAX_LABELS = 25;

  private static final class Series {
    final Gauge gauge;
    int count;

    Series(Gauge gauge) {
      this.gauge = gauge;
    }
  }

  private final MetricsProvider provider;
  private final String name;
  private final Map<Integer, Series> byPriority = new HashMap<>();
  private Series overflow;
  private Series recent;
  private int recentPriority;

  PriorityDepthMetric(MetricsProvider provider, String name) {
    this.provider = provider;
    this.name = name;
  }

  /** One more dirty item at {@code priority}. */
  void increment(int priority) {
    Series s = series(priority);
    s.gauge.set(++s.count);
  }

  /** One dirty item fewer at {@code priority}. */
  void decrement(int priority) {
    Series s = series(priority);
    s.gauge.set(--s.count);
  }

  /** A dirty item's priority rose from {@code from} to {@code to}. */
  void move(int from, int to) {
    Series a = series(from);
    Series b = series(to);
    if (a != b) {
      a.gauge.set(--a.count);
      b.gauge.set(++b.count);
    }
  }

  private Series series(int priority) {
    if (recent != null && recentPriority == priority) {
      return recent;
    }
    Series s = byPriority.get(priority);
    if (s == null) {
      if (byPriority.size() < MAX_LABELS) {
        s = new Series(provider.newDepthWithPriorityMetric(name, Integer.toString(priority)));
        byPriority.put(priority, s);
      } else {
        if (overflow == null) {
          overflow = new Series(
              provider.newDepthWithPriorityMetric(name, MetricsProvider.PRIORITY_OVERFLOW));
        }
        s = overflow;
      }
    }
    recent = s;
    recentPriority = priority;
    return s;
  }
}
