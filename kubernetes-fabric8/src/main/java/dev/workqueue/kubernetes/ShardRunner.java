package dev.workqueue.kubernetes;

import dev.workqueue.clock.Clock;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a replica's {@link ShardMember} on a thread of its own: one tick per retry period. */
final class ShardRunner {
  private static final Logger log = LoggerFactory.getLogger(ShardRunner.class);

  private final Sharding config;
  private final ShardMember member;
  private final Consumer<Predicate<String>> onGain;
  private volatile boolean stopped;
  private Thread thread;

  ShardRunner(KubernetesClient client, Sharding config, Consumer<Predicate<String>> onGain) {
    this.config = config;
    this.member = new ShardMember(config.identity(), new LeaseShardStore(client,
        config.namespace(), config.ring(), (int) config.leaseDuration().toSeconds()),
        Clock.system(), config.leaseDuration().toNanos(), config.renewDeadline().toNanos());
    this.onGain = onGain;
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
      long wait = member.isLeaving() ? Math.min(nanos, 20_000_000L)
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

  private void tick() {
    try {
      onGain.accept(member.tick());
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
