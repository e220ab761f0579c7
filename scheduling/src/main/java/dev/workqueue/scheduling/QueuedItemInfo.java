package dev.workqueue.scheduling;

import java.util.Set;

/**
 * The per-item state, one instance per key for as long as the queue knows the key. Mutable,
 * guarded by the lock of the part that holds it (the main lock for the pool, the activeQ lock
 * for activeQ and the in-flight set, the backoffQ lock for the back-off heaps). A field that a
 * heap sorts by ({@link #item}, {@link #timestamp}, {@link #sequence}, the back-off expiry) is
 * changed only while the item is in no heap: callers delete it, change it, and add it again.
 */
final class QueuedItemInfo<K, T> implements QueuedItem<K, T> {
  final K key;
  T item;
  long timestamp;
  long sequence;
  int attempts;
  int unschedulableCount;
  int consecutiveErrors;
  /** The cached back-off expiry; valid while {@link #hasBackoffExpiry}; cleared on failure. */
  long backoffExpiry;
  boolean hasBackoffExpiry;
  /** When the item first entered activeQ; valid while {@link #hasInitialAttempt}. */
  long initialAttemptTime;
  boolean hasInitialAttempt;
  /** What said no at the last failure; its two sets are also kept apart, below. */
  Rejectors lastRejectors = Rejectors.none();
  Set<String> unschedulableRejectors = Set.of();
  Set<String> pendingRejectors = Set.of();
  /** In the pool because a gate said no. */
  boolean gated;
  /** The gate that failed last; checked first next time. Null if none failed. */
  String lastFailedGate;
  /** The last timeout flush that re-checked the item; valid while {@link #flushed}. */
  long lastFlush;
  boolean flushed;

  QueuedItemInfo(K key, T item, long now, long sequence) {
    this.key = key;
    this.item = item;
    this.timestamp = now;
    this.sequence = sequence;
  }

  @Override
  public T item() {
    return item;
  }

  @Override
  public K key() {
    return key;
  }

  @Override
  public long timestamp() {
    return timestamp;
  }

  @Override
  public int attempts() {
    return attempts;
  }

  @Override
  public int unschedulableCount() {
    return unschedulableCount;
  }

  @Override
  public int consecutiveErrors() {
    return consecutiveErrors;
  }

  @Override
  public long sequence() {
    return sequence;
  }

  boolean hasRejectors() {
    return !unschedulableRejectors.isEmpty() || !pendingRejectors.isEmpty();
  }

  boolean isRejectedBy(String name) {
    return unschedulableRejectors.contains(name) || pendingRejectors.contains(name);
  }

  /** Counts a failed attempt at {@code now} and forgets the cached expiry. */
  void recordFailure(Rejectors rejectors, long now, long newSequence) {
    if (rejectors.isEmpty()) {
      consecutiveErrors = saturatedIncrement(consecutiveErrors);
    } else {
      unschedulableCount = saturatedIncrement(unschedulableCount);
      consecutiveErrors = 0;
    }
    lastRejectors = rejectors;
    unschedulableRejectors = rejectors.unschedulable();
    pendingRejectors = rejectors.pending();
    timestamp = now;
    sequence = newSequence;
    hasBackoffExpiry = false;
    flushed = false;
  }

  /** An immutable copy of the item and its counters; the caller holds the owning lock. */
  ItemSnapshot<K, T> snapshot() {
    return new ItemSnapshot<>(item, key, timestamp, sequence, attempts, unschedulableCount,
        consecutiveErrors, lastRejectors);
  }

  /** The start of the item's stay in the pool: the later of its timestamp and last flush. */
  long stayStart() {
    return flushed && lastFlush - timestamp > 0 ? lastFlush : timestamp;
  }

  static int saturatedIncrement(int n) {
    return n == Integer.MAX_VALUE ? n : n + 1;
  }

  @Override
  public String toString() {
    return "QueuedItem[key=" + key + ", attempts=" + attempts + ", unschedulable="
        + unschedulableCount + ", errors=" + consecutiveErrors + (gated ? ", gated" : "") + "]";
  }
}
