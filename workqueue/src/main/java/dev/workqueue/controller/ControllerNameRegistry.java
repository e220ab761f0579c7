package dev.workqueue.controller;

import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.MetricsProvider;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The name registry: two controllers of one name that publish to one metrics provider cannot
 * run at once, as their metric series would be one. One instance per controller, holding the
 * providers it publishes to and whether its name is claimed on them; the registry itself, per
 * provider (by identity), is shared by all controllers.
 */
final class ControllerNameRegistry {
  /** The names of running controllers, per metrics provider they publish to (identity). */
  private static final Map<Object, Set<String>> RUNNING_NAMES = new IdentityHashMap<>();

  private final String name;
  /** The non-no-op metrics providers this controller publishes to, where its name is claimed. */
  private final List<Object> metricsProviders = new ArrayList<>();
  /** Whether this controller's name is claimed in {@link #RUNNING_NAMES}. Lifecycle lock. */
  private boolean nameClaimed;

  ControllerNameRegistry(ControllerBuilder<?> b) {
    this.name = b.name;
    if (b.metrics != ControllerMetricsProvider.noop()) {
      metricsProviders.add(b.metrics);
    }
    if (b.queueFactory == null && b.queueMetrics != MetricsProvider.noop()
        && b.queueMetrics != b.metrics) {
      metricsProviders.add(b.queueMetrics);
    }
  }

  /**
   * Claims this controller's name on each metrics provider it publishes to, or refuses the
   * start if another running controller holds it there. Under the lifecycle lock.
   */
  void claim() {
    synchronized (RUNNING_NAMES) {
      for (Object p : metricsProviders) {
        if (RUNNING_NAMES.getOrDefault(p, Set.of()).contains(name)) {
          throw new IllegalStateException("another controller named " + name + " is running"
              + " on the same metrics provider; their metric series would be one: give each"
              + " controller its own name (or its own provider)");
        }
      }
      for (Object p : metricsProviders) {
        RUNNING_NAMES.computeIfAbsent(p, k -> new HashSet<>()).add(name);
      }
      nameClaimed = true;
    }
  }

  /** Gives the name back at the end of a run (or of a start that failed). Lifecycle lock. */
  void release() {
    if (!nameClaimed) {
      return;
    }
    synchronized (RUNNING_NAMES) {
      for (Object p : metricsProviders) {
        Set<String> names = RUNNING_NAMES.get(p);
        names.remove(name);
        if (names.isEmpty()) {
          RUNNING_NAMES.remove(p);
        }
      }
      nameClaimed = false;
    }
  }
}
