package dev.workqueue.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
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
  /** New per-item attempt counters start at zero. */
  private static final Function<Object, AtomicInteger> NEW_COUNTER = item -> new AtomicInteger();

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

  /**
   * {@code Map.computeIfAbsent}: the existing state, or new state made once. An item that has
   * state is found with one lock-free read.
   */
  V computeIfAbsent(K item, Function<? super K, ? extends V> create) {
    ConcurrentHashMap<K, V> m = map;
    if (m == null) {
      return cache.get(item, create);
    }
    V existing = m.get(item);
    return existing != null ? existing : m.computeIfAbsent(item, create);
  }

  /**
   * Counts one more attempt of {@code item} and returns its count, this one included. The count
   * saturates at {@link Integer#MAX_VALUE} instead of wrapping.
   *
   * <p>Lock-free and allocation-free once the item has a counter: one map read and one CAS on
   * the item's own counter, so failures of different items never contend. A {@link #remove}
   * racing with this call may take the counter away before or after the increment; either way
   * the two calls overlapped, and the outcome is that of one order of them.
   */
  static <K> int countAttempt(ItemStore<K, AtomicInteger> store, K item) {
    AtomicInteger counter = store.computeIfAbsent(item, NEW_COUNTER);
    int count;
    do {
      count = counter.get();
      if (count == Integer.MAX_VALUE) {
        return count;
      }
    } while (!counter.compareAndSet(count, count + 1));
    return count + 1;
  }

  /** The attempts counted for {@code item}: 0 if it has no counter; not activity. */
  static <K> int attempts(ItemStore<K, AtomicInteger> store, K item) {
    AtomicInteger counter = store.peek(item);
    return counter == null ? 0 : counter.get();
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
