package dev.workqueue.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The per-item state of a limiter: a plain {@link ConcurrentHashMap} by default, or a Caffeine
 * cache when the state is bounded by a maximum number of items and/or expiry after
 * inactivity.
 *
 * <p>The bounded cache reads time through the limiter's {@link Clock} (as its {@code Ticker})
 * and runs its maintenance in the calling thread, so eviction is deterministic under a
 * {@code FakeClock}. Only {@code when} counts as activity: {@link #peek} reads without
 * touching the entry's access time.
 *
 * <p>Thread-safe.
 *
 * @param <K> the item type
 * @param <V> the state kept per item
 */
final class ItemStore<K, V> {
  /**
   * One more attempt: the remapping function of the per-item counters. Saturates instead of
   * wrapping past {@link Integer#MAX_VALUE}. Stateless, so it allocates nothing, and counts
   * up to 127 are the JDK's cached {@code Integer}s.
   */
  static final BiFunction<Object, Integer, Integer> INCREMENT =
      (item, count) -> count == null ? 1 : count == Integer.MAX_VALUE ? count : count + 1;

  /** The unbounded store, or null when {@link #cache} is used. */
  private final ConcurrentHashMap<K, V> map;
  /** The bounded store, or null when {@link #map} is used. */
  private final Cache<K, V> cache;

  private ItemStore(ConcurrentHashMap<K, V> map, Cache<K, V> cache) {
    this.map = map;
    this.cache = cache;
  }

  /** State for every item until it is removed. */
  static <K, V> ItemStore<K, V> unbounded() {
    return new ItemStore<>(new ConcurrentHashMap<>(), null);
  }

  /**
   * State held for at most {@code maximumItems} items (if positive) and dropped after
   * {@code expireAfterInactivity} without a {@code when} (if non-null).
   */
  static <K, V> ItemStore<K, V> bounded(
      long maximumItems, Duration expireAfterInactivity, Clock clock) {
    Caffeine<Object, Object> builder =
        Caffeine.newBuilder().ticker(clock::nanoTime).executor(Runnable::run);
    if (maximumItems > 0) {
      builder.maximumSize(maximumItems);
    }
    if (expireAfterInactivity != null) {
      builder.expireAfterAccess(expireAfterInactivity);
    }
    return new ItemStore<>(null, builder.build());
  }

  /** {@code Map.compute}: atomic per item. */
  V compute(K item, BiFunction<? super K, ? super V, ? extends V> remapping) {
    ConcurrentHashMap<K, V> m = map;
    return m != null ? m.compute(item, remapping) : cache.asMap().compute(item, remapping);
  }

  /** {@code Map.computeIfAbsent}: the existing state, or new state made once. */
  V computeIfAbsent(K item, Function<? super K, ? extends V> create) {
    ConcurrentHashMap<K, V> m = map;
    return m != null ? m.computeIfAbsent(item, create) : cache.get(item, create);
  }

  /** The state of {@code item}, or null; allocates nothing and is not activity. */
  V peek(K item) {
    ConcurrentHashMap<K, V> m = map;
    return m != null ? m.get(item) : cache.policy().getIfPresentQuietly(item);
  }

  /** Drops the state of {@code item}, if any. */
  void remove(K item) {
    if (map != null) {
      map.remove(item);
    } else {
      cache.invalidate(item);
    }
  }

  /** How many items have state now, after running any pending eviction. */
  long size() {
    if (map != null) {
      return map.mappingCount();
    }
    cache.cleanUp();
    return cache.estimatedSize();
  }
}
