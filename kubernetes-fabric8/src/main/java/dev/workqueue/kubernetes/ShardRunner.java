package dev.workqueue.kubernetes;

import dev.workqueue.clock.Clock;
import dev.workqueue.controller.Result;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a replica's {@link ShardMember} on a thread of its own, one round per retry period, and
 * connects it to the controller: the keys each change gives it are queued from the cache, every
 * reconcile is gated, and the ring's metrics are kept.
 */
final class ShardRunner {
  private static final Logger log = LoggerFactory.getLogger(ShardRunner.class);

  private final Sharding config;
  private final ShardMember member;
  private final Supplier<List<ObjectKey>> cachedKeys;
  private final Consumer<ObjectKey> enqueue;
  private final Gauge members;
  private final Gauge owned;
  private final Counter handOvers;
  private final Histogram handOverTime;
  /**
   * Keys of objects gone from the cache whose events this replica filtered out as another's,
   * and when: if a change of the ring gives one to this replica before its previous owner
   * reconciled the delete, the cache no longer lists it, so it is queued from here. Bounded.
   */
  private final Map<ObjectKey, Long> goneAndFiltered = new ConcurrentHashMap<>();
  private static final int GONE_LIMIT = 100_000;
  /** Keys gained and not reconciled here yet: when the change gave them (System.nanoTime). */
  private final Map<String, Long> gainedAt = new ConcurrentHashMap<>();
  private volatile boolean stopped;
  private Thread thread;
  private List<String> lastMembers = List.of(); // the ring's thread (and the first tick's)
  /** The gains of a round that threw before queueing them all: the next round queues them. */
  private Predicate<String> carried;

  ShardRunner(KubernetesClient client, Sharding config, ControllerMetricsProvider metrics,
      Supplier<List<ObjectKey>> cachedKeys, Consumer<ObjectKey> enqueue) {
    this(config, new ShardMember(config.identity(), new LeaseShardStore(client,
        config.namespace(), config.ring(), (int) config.leaseDuration().toSeconds()),
        Clock.system(), config.leaseDuration().toNanos(), config.renewDeadline().toNanos()),
        metrics, cachedKeys, enqueue);
  }

  /** On a given member (tests: a member on an in-memory store and a fake clock). */
  ShardRunner(Sharding config, ShardMember member, ControllerMetricsProvider metrics,
      Supplier<List<ObjectKey>> cachedKeys, Consumer<ObjectKey> enqueue) {
    this.config = config;
    this.member = member;
    this.cachedKeys = cachedKeys;
    this.enqueue = enqueue;
    this.members = metrics.newShardMembers(config.ring());
    this.owned = metrics.newShardKeysOwned(config.ring());
    this.handOvers = metrics.newShardHandOvers(config.ring());
    this.handOverTime = metrics.newShardHandOverTime(config.ring());
  }

  /** Whether the ring gives {@code key} to this replica: events for others' keys are dropped. */
  boolean owns(ObjectKey key) {
    return member.owns(key.toString());
  }

  /**
   * Whether this replica may reconcile {@code key} now; if so, until {@link #release}. The
   * first reconcile of a key gained from a change of the ring ends its hand-over.
   */
  boolean acquire(ObjectKey key) {
    String k = key.toString();
    if (!member.tryAcquire(k)) {
      return false;
    }
    Long since = gainedAt.remove(k);
    if (since != null) {
      handOverTime.observe((System.nanoTime() - since) / 1e9);
    }
    return true;
  }

  void release(ObjectKey key) {
    member.release(key.toString());
  }

  /**
   * Runs {@code reconcile} while this member holds {@code key}. A key that is ours but whose
   * previous owner has not let go yet is tried again after a retry period; one that is not ours
   * (any more) is left alone: its owner has it from its own events and its re-list on gain.
   */
  Result reconcileHeld(ObjectKey key, Callable<Result> reconcile) throws Exception {
    if (!acquire(key)) {
      return owns(key) ? Result.requeueAfter(config.retryPeriod()) : Result.success();
    }
    try {
      return reconcile.call();
    } finally {
      release(key);
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

  ShardMember member() {
    return member;
  }

  /** Joins the ring: one tick now (so the first split is known), then one per retry period. */
  void start(String controller) {
    tick();
    thread = new Thread(this::run, "workqueue-shard-" + controller + "-" + config.identity());
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (!stopped && !member.hasLeft()) {
      long nanos = config.retryPeriod().toNanos();
      long wait = member.isLeaving() && !member.isCutOff() ? Math.min(nanos, 20_000_000L)
          : nanos + ThreadLocalRandom.current().nextLong(nanos / 5 + 1);
      try {
        Thread.sleep(Math.max(1, wait / 1_000_000L));
      } catch (InterruptedException e) {
        if (stopped) {
          return;
        }
      }
      tick();
    }
  }

  /** One round, then the keys it gained queued from the cache, and the gauges. */
  void tick() {
    try {
      Predicate<String> gained = member.tick();
      long now = System.nanoTime();
      if (carried != null) {
        Predicate<String> before = carried;
        Predicate<String> latest = gained;
        gained = k -> before.test(k) || latest.test(k); // a round that threw left these
      }
      carried = gained;
      long forget = now - 2 * config.leaseDuration().toNanos();
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
      carried = null;
      owned.set(owns);
      List<String> ring = member.members();
      members.set(ring.size());
      if (!ring.equals(lastMembers)) {
        lastMembers = ring;
        Consumer<List<String>> listener = config.onMembersChange();
        if (listener != null) {
          try {
            listener.accept(ring);
          } catch (RuntimeException e) {
            log.warn("shard ring {}: the members listener threw; ignored", config.ring(), e);
          }
        }
      }
    } catch (RuntimeException e) {
      log.error("shard ring {}: member {}: a round failed; the next one retries", config.ring(),
          config.identity(), e);
    }
  }

  /**
   * Leaves the ring: nothing new starts, and once nothing is in flight the member's Lease is
   * deleted (by the ring's thread), so the others take its keys at once. Waits up to {@code
   * timeout}; a Lease not deleted by then is no longer renewed and expires by itself. A call
   * to the API server that hangs holds up the ring's thread, never this one.
   *
   * @return whether the member left within the timeout
   */
  boolean leave(Duration timeout) throws InterruptedException {
    member.leave();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!member.hasLeft() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    abandon();
    return member.hasLeft();
  }

  /**
   * Stops renewing without deleting the Lease: for a stop whose reconciles did not all end, so
   * the others wait for the Lease to expire before they take its keys.
   */
  void abandon() {
    member.leave(); // starts nothing more
    stopped = true;
    if (thread != null) {
      thread.interrupt();
    }
  }
}
