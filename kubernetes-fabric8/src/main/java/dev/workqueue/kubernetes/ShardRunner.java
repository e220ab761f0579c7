package dev.workqueue.kubernetes;

import dev.workqueue.clock.Clock;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a replica's {@link ShardMember} on a thread of its own, one round per retry period, and
 * connects it to its controllers ({@link ShardParticipant}s): one for a lone sharded controller,
 * every Kubernetes controller of a sharded {@link Operator}. Each round queues in every
 * controller the keys the round gave this replica, and sets the ring's metrics, counted over
 * all of them. So a replica holds one Lease, and a join, leave or death moves the keys of
 * every controller at once, each under the member's one hand-over protocol.
 */
final class ShardRunner {
  private static final Logger log = LoggerFactory.getLogger(ShardRunner.class);

  private final Sharding config;
  private final ShardMember member;
  private final Gauge members;
  private final Gauge owned;
  private final Counter handOvers;
  private final Histogram handOverTime;
  private final List<ShardParticipant> participants = new CopyOnWriteArrayList<>();
  private volatile boolean stopped;
  private Thread thread;
  private List<String> lastMembers = List.of(); // the ring's thread (and the first tick's)
  /** The gains of a round that threw before queueing them all: the next round queues them. */
  private Predicate<String> carried;

  ShardRunner(KubernetesClient client, Sharding config, ControllerMetricsProvider metrics) {
    this(config, new ShardMember(config.identity(), new LeaseShardStore(client,
        config.namespace(), config.ring(), (int) config.leaseDuration().toSeconds()),
        Clock.system(), config.leaseDuration().toNanos(), config.renewDeadline().toNanos()),
        metrics);
  }

  /** On a given member (tests: a member on an in-memory store and a fake clock). */
  ShardRunner(Sharding config, ShardMember member, ControllerMetricsProvider metrics) {
    this.config = config;
    this.member = member;
    this.members = metrics.newShardMembers(config.ring());
    this.owned = metrics.newShardKeysOwned(config.ring());
    this.handOvers = metrics.newShardHandOvers(config.ring());
    this.handOverTime = metrics.newShardHandOverTime(config.ring());
  }

  /**
   * A controller's part of a ring: of {@code shared}, an operator's, if given; else of a ring
   * of its own on {@code sharding}; null if neither (not sharded).
   */
  static ShardParticipant participant(ShardRunner shared, Sharding sharding,
      KubernetesClient client, ControllerMetricsProvider metrics,
      Supplier<? extends ObjectCache<?>> cache, Consumer<ObjectKey> enqueue) {
    ShardRunner ring = shared != null ? shared
        : sharding == null ? null : new ShardRunner(client, sharding, metrics);
    if (ring == null) {
      return null;
    }
    ShardParticipant p = ring.join(shared == null, () -> {
      ObjectCache<?> c = cache.get();
      return c == null ? List.of() : c.list().stream().map(ObjectKey::of).toList();
    }, enqueue);
    return p.withGone(key -> {
      ObjectCache<?> c = cache.get();
      return c != null && c.get(key).isEmpty();
    });
  }

  /**
   * Adds a controller to the ring, before {@link #start}.
   *
   * @param lone whether the ring is the controller's own (it starts and leaves it)
   * @param cachedKeys the keys of the controller's cached objects of its reconciled type
   * @param enqueue where the keys the ring gives this replica are queued
   */
  ShardParticipant join(boolean lone, Supplier<List<ObjectKey>> cachedKeys,
      Consumer<ObjectKey> enqueue) {
    ShardParticipant p = new ShardParticipant(this, lone, cachedKeys, enqueue, handOvers,
        handOverTime);
    participants.add(p);
    return p;
  }

  ShardMember member() {
    return member;
  }

  Duration retryPeriod() {
    return config.retryPeriod();
  }

  /** Joins the ring: one tick now (so the first split is known), then one per retry period. */
  void start(String name) {
    tick();
    thread = new Thread(this::run, "workqueue-shard-" + name + "-" + config.identity());
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

  /** One round, then the keys it gained queued from each controller's cache, and the gauges. */
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
      int owns = 0;
      for (ShardParticipant p : participants) {
        owns += p.gain(gained, now, forget);
      }
      carried = null;
      owned.set(owns);
      List<String> ring = member.members();
      members.set(ring.size());
      if (!ring.equals(lastMembers)) {
        lastMembers = ring;
        tell(ring);
      }
    } catch (RuntimeException e) {
      log.error("shard ring {}: member {}: a round failed; the next one retries", config.ring(),
          config.identity(), e);
    }
  }

  private void tell(List<String> ring) {
    Consumer<List<String>> listener = config.onMembersChange();
    if (listener != null) {
      try {
        listener.accept(ring);
      } catch (RuntimeException e) {
        log.warn("shard ring {}: the members listener threw; ignored", config.ring(), e);
      }
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
    if (thread == null) { // never started (its operator's start was stopped): no Lease
      abandon();
      return true;
    }
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
