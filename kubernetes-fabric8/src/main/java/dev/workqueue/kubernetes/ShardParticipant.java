package dev.workqueue.kubernetes;

import dev.workqueue.controller.Result;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Histogram;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One {@link KubernetesController}'s part of a shard ring ({@link ShardRunner}): its events are
 * filtered by the ring, its reconciles are gated by the ring's member, and the keys a change of
 * the ring gives the replica are queued from its cache. A lone sharded controller is the only
 * participant of its ring and starts and leaves it; the controllers of a sharded {@link
 * Operator} are participants of the operator's one ring, which the operator starts and leaves.
 *
 * <p>The ring decides on the key alone ({@code namespace/name}), whatever the controller: the
 * objects of one name in one namespace go to one replica for every controller (a parent and
 * the child named after it, reconciled by two controllers, are on one replica), and the one
 * member's claims (rule 2 of {@link ShardMember}) cover the reconciles of every controller.
 *
 * <p>Thread-safe: the ring's thread calls {@link #gain}, the informers' threads {@link #owns}
 * and {@link #filtered}, the workers {@link #reconcileHeld}.
 */
final class ShardParticipant {
  private static final int GONE_LIMIT = 100_000;

  private final ShardRunner ring;
  private final boolean lone; // the ring is this controller's own: it starts and leaves it
  private final Supplier<List<ObjectKey>> cachedKeys;
  private final Consumer<ObjectKey> enqueue;
  private final Counter handOvers;
  private final Histogram handOverTime;
  /**
   * Keys of objects gone from the cache whose events this replica filtered out as another's,
   * and when: if a change of the ring gives one to this replica before its previous owner
   * reconciled the delete, the cache no longer lists it, so it is queued from here. Bounded.
   */
  private final Map<ObjectKey, Long> goneAndFiltered = new ConcurrentHashMap<>();
  /** Keys gained and not reconciled here yet: when the change gave them (System.nanoTime). */
  private final Map<String, Long> gainedAt = new ConcurrentHashMap<>();
  /** Whether a key's object is no longer in the controller's cache (a delete). */
  private volatile Predicate<ObjectKey> gone = key -> false;

  ShardParticipant(ShardRunner ring, boolean lone, Supplier<List<ObjectKey>> cachedKeys,
      Consumer<ObjectKey> enqueue, Counter handOvers, Histogram handOverTime) {
    this.ring = ring;
    this.lone = lone;
    this.cachedKeys = cachedKeys;
    this.enqueue = enqueue;
    this.handOvers = handOvers;
    this.handOverTime = handOverTime;
  }

  /** Tells how to find out whether a key's object has left the controller's cache. */
  ShardParticipant withGone(Predicate<ObjectKey> isGone) {
    this.gone = isGone;
    return this;
  }

  /**
   * Whether an event of {@code key} is queued: only if the ring gives it to this replica. One
   * that is not is remembered if its object is gone (see {@link #filtered}).
   */
  boolean admits(ObjectKey key) {
    if (owns(key)) {
      return true;
    }
    filtered(key, gone.test(key));
    return false;
  }

  /** Whether the ring gives {@code key} to this replica: events for others' keys are dropped. */
  boolean owns(ObjectKey key) {
    return ring.member().owns(key.toString());
  }

  /**
   * Runs {@code reconcile} while the member holds {@code key}. A key that is ours but whose
   * previous owner has not let go yet is tried again after a retry period; one that is not ours
   * (any more) is left alone: its owner has it from its own events and its re-list on gain.
   * The first reconcile of a key gained from a change of the ring ends its hand-over.
   */
  Result reconcileHeld(ObjectKey key, Callable<Result> reconcile) throws Exception {
    String k = key.toString();
    ShardMember member = ring.member();
    if (!member.tryAcquire(k)) {
      return owns(key) ? Result.requeueAfter(ring.retryPeriod()) : Result.success();
    }
    try {
      Long since = gainedAt.remove(k);
      if (since != null) {
        handOverTime.observe((System.nanoTime() - since) / 1e9);
      }
      return reconcile.call();
    } finally {
      member.release(k);
    }
  }

  /**
   * An event of {@code key} was filtered out as another member's; {@code gone}: its object is
   * no longer cached (a delete), so a later gain could not find it in the cache.
   */
  void filtered(ObjectKey key, boolean gone) {
    if (gone && goneAndFiltered.size() < GONE_LIMIT) {
      goneAndFiltered.put(key, System.nanoTime());
    }
  }

  /**
   * A round's gains: queues the keys {@code gained} (deleted objects' keys filtered before,
   * and cached ones), forgets deletes older than {@code forget}.
   *
   * @return how many of the cached keys the ring gives this replica now
   */
  int gain(Predicate<String> gained, long now, long forget) {
    for (Map.Entry<ObjectKey, Long> e : goneAndFiltered.entrySet()) {
      if (gained.test(e.getKey().toString())) {
        goneAndFiltered.remove(e.getKey());
        handOvers.inc();
        enqueue.accept(e.getKey()); // its delete, which its previous owner may not have seen
      } else if (e.getValue() < forget) {
        goneAndFiltered.remove(e.getKey(), e.getValue());
      }
    }
    int owns = 0;
    ShardMember member = ring.member();
    for (ObjectKey key : cachedKeys.get()) {
      String k = key.toString();
      if (gained.test(k)) {
        gainedAt.put(k, now);
        handOvers.inc();
        enqueue.accept(key);
      }
      if (member.owns(k)) {
        owns++;
      } else {
        gainedAt.remove(k); // given away again before it was reconciled here
      }
    }
    return owns;
  }

  ShardMember member() {
    return ring.member();
  }

  /** Joins the ring, if it is this controller's own; an operator starts its ring itself. */
  void start(String controller) {
    if (lone) {
      ring.start(controller);
    }
  }

  /** Leaves the ring (see {@link ShardRunner#leave}), if it is this controller's own. */
  boolean leave(Duration timeout) throws InterruptedException {
    return !lone || ring.leave(timeout);
  }

  /** Stops renewing (see {@link ShardRunner#abandon}), if the ring is this controller's own. */
  void abandon() {
    if (lone) {
      ring.abandon();
    }
  }
}
