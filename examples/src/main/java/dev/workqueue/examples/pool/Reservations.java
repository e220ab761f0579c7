package dev.workqueue.examples.pool;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.workqueue.clock.Clock;
import java.time.Duration;

/**
 * The pods handed to a claim and not to be handed out again for a while: a set of UIDs whose
 * entries expire {@code ttl} after they were made, on the scheduler's clock (Caffeine with a
 * ticker reading the injected {@link Clock}, so a test moves expiry with a fake clock).
 *
 * <p>Why: the claim write moves a pod Idle → Starting, but the informer cache goes on listing
 * it as Idle until the watch event arrives (~50–300 ms). Without the reservation the next
 * refresh would admit the pod again and a second request would race the first for it. The
 * TTL (2 s by default) outlasts any realistic watch lag, and is far shorter than the time a
 * pod takes to become legitimately Idle again.
 *
 * <p>Thread-safe. Caffeine's maintenance runs on the calling thread: no pool is used.
 */
final class Reservations {
  private final Cache<String, Boolean> byUid;

  Reservations(Duration ttl, Clock clock) {
    this.byUid = Caffeine.newBuilder()
        .expireAfterWrite(ttl)
        .ticker(clock::nanoTime)
        .executor(Runnable::run)
        .build();
  }

  /** Reserves the pod unless it is reserved already; an expired reservation counts as none. */
  boolean tryReserve(String uid) {
    return byUid.asMap().putIfAbsent(uid, Boolean.TRUE) == null;
  }

  boolean isReserved(String uid) {
    return byUid.getIfPresent(uid) != null;
  }

  void release(String uid) {
    byUid.invalidate(uid);
  }

  /** Reservations held, counting expired ones not yet swept by {@link #sweep}. O(1). */
  long estimatedSize() {
    return byUid.estimatedSize();
  }

  /** Drops expired entries now, so that {@link #estimatedSize} catches up. */
  void sweep() {
    byUid.cleanUp();
  }
}
