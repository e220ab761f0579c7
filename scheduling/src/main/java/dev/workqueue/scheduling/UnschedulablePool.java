package dev.workqueue.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The unschedulable pool: items that wait for the world to change (or for a gate to open).
 * Iteration is in arrival order, so every scan is deterministic. Guarded by the main lock.
 *
 * <p>With the optional event index, each pooled item is also filed under the registered
 * events that can move it (its rejectors' hints, or its gate's events), so an event visits
 * only the items it can concern instead of the whole pool (kube #138095). Wildcard events
 * still visit everything.
 */
final class UnschedulablePool<K, T> {
  private final LinkedHashMap<K, QueuedItemInfo<K, T>> items = new LinkedHashMap<>();
  private final LinkedHashMap<String, Integer> byRejector = new LinkedHashMap<>();
  private final SchedulingMetrics metrics;
  private final Registrations<T> registrations;
  /** Registered event → keys of the pooled items it can move; null when not indexing. */
  private final Map<ClusterEvent, Set<K>> index;
  /** Arrival number of each pooled key, to keep index lookups in arrival order. */
  private final Map<K, Long> arrival = new HashMap<>();
  private long arrivals;
  private int gated;

  UnschedulablePool(SchedulingMetrics metrics, Registrations<T> registrations,
      boolean indexByEvent) {
    this.metrics = metrics;
    this.registrations = registrations;
    this.index = indexByEvent ? new HashMap<>() : null;
  }

  void add(QueuedItemInfo<K, T> info) {
    QueuedItemInfo<K, T> previous = items.put(info.key, info);
    if (previous != null) {
      count(previous, -1);
      unindex(previous);
    }
    count(info, +1);
    arrival.put(info.key, arrivals++);
    if (index != null) {
      for (ClusterEvent e : registrations.eventsOfInterestTo(info)) {
        index.computeIfAbsent(e, x -> new LinkedHashSet<>()).add(info.key);
      }
    }
    publish();
  }

  QueuedItemInfo<K, T> remove(K key) {
    QueuedItemInfo<K, T> info = items.remove(key);
    if (info != null) {
      count(info, -1);
      unindex(info);
      arrival.remove(key);
      publish();
    }
    return info;
  }

  private void unindex(QueuedItemInfo<K, T> info) {
    if (index == null) {
      return;
    }
    for (ClusterEvent e : registrations.eventsOfInterestTo(info)) {
      Set<K> keys = index.get(e);
      if (keys != null && keys.remove(info.key) && keys.isEmpty()) {
        index.remove(e);
      }
    }
  }

  QueuedItemInfo<K, T> get(K key) {
    return items.get(key);
  }

  /** The pooled items a gate holds. */
  int gatedCount() {
    return gated;
  }

  int size() {
    return items.size();
  }

  boolean isEmpty() {
    return items.isEmpty();
  }

  /** A copy, in arrival order: callers move items while they walk it. */
  List<QueuedItemInfo<K, T>> snapshot() {
    return new ArrayList<>(items.values());
  }

  /**
   * The items {@code event} may concern, in arrival order: all of them without the index or
   * for a wildcard, else those filed under a registered event that matches it.
   */
  List<QueuedItemInfo<K, T>> candidatesFor(ClusterEvent event) {
    if (index == null || event.isWildcard()) {
      return snapshot();
    }
    Set<K> keys = new HashSet<>();
    for (ClusterEvent registered : registrations.registeredMatching(event)) {
      keys.addAll(index.getOrDefault(registered, Set.of()));
    }
    List<QueuedItemInfo<K, T>> found = new ArrayList<>(keys.size());
    for (K key : keys) {
      found.add(items.get(key));
    }
    found.sort(Comparator.comparingLong(i -> arrival.get(i.key)));
    return found;
  }

  /** The rejectors an item counts under: its gate while gated, else its rejectors. */
  private static Set<String> countedRejectors(QueuedItemInfo<?, ?> info) {
    if (info.gated) {
      return info.lastFailedGate == null ? Set.of() : Set.of(info.lastFailedGate);
    }
    Set<String> all = new LinkedHashSet<>(info.unschedulableRejectors);
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
