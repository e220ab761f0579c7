package dev.workqueue.scheduling;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;

/**
 * The unschedulable pool: items that wait for the world to change (or for a gate to open).
 * Iteration is in arrival order, so every scan is deterministic. Guarded by the main lock.
 */
final class UnschedulablePool<K, T> {
  private final LinkedHashMap<K, QueuedItemInfo<K, T>> items = new LinkedHashMap<>();
  private final LinkedHashMap<String, Integer> byRejector = new LinkedHashMap<>();
  private final SchedulingMetrics metrics;
  private int gated;

  UnschedulablePool(SchedulingMetrics metrics) {
    this.metrics = metrics;
  }

  void add(QueuedItemInfo<K, T> info) {
    QueuedItemInfo<K, T> previous = items.put(info.key, info);
    if (previous != null) {
      count(previous, -1);
    }
    count(info, +1);
    publish();
  }

  QueuedItemInfo<K, T> remove(K key) {
    QueuedItemInfo<K, T> info = items.remove(key);
    if (info != null) {
      count(info, -1);
      publish();
    }
    return info;
  }

  QueuedItemInfo<K, T> get(K key) {
    return items.get(key);
  }

  int size() {
    return items.size();
  }

  int gatedCount() {
    return gated;
  }

  boolean isEmpty() {
    return items.isEmpty();
  }

  /** A copy, in arrival order: callers move items while they walk it. */
  List<QueuedItemInfo<K, T>> snapshot() {
    return new ArrayList<>(items.values());
  }

  /** The rejectors an item counts under: its gate while gated, else its rejectors. */
  private static Set<String> countedRejectors(QueuedItemInfo<?, ?> info) {
    if (info.gated) {
      return info.lastFailedGate == null ? Set.of() : Set.of(info.lastFailedGate);
    }
    Set<String> all = new java.util.LinkedHashSet<>(info.unschedulableRejectors);
    all.addAll(info.pendingRejectors);
    return all;
  }

  private void count(QueuedItemInfo<K, T> info, int delta) {
    if (info.gated) {
      gated += delta;
    }
    for (String r : countedRejectors(info)) {
      int n = byRejector.merge(r, delta, Integer::sum);
      metrics.rejector(r, n);
    }
  }

  private void publish() {
    metrics.poolSizes(items.size() - gated, gated);
  }
}
