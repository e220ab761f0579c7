package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.WorkQueue;
import dev.workqueue.controller.ControllerStatus;
import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.ratelimit.RateLimiters;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The priorities of a {@link KubernetesController}'s adds (issue #35, item 5): a replay of the
 * cache on a gain of the Lease (and the initial list) goes in at a low priority, so a real change
 * made meanwhile is not reconciled behind the whole replay; the replay goes into the queue before
 * the workers start, so no key is reconciled twice because of it.
 */
@Timeout(120)
class ReplayPriorityTest {
  // Long enough that a loaded machine renews in time (a loss would replay again); the regain
  // test waits out one lease.
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Duration RENEW = Duration.ofSeconds(5);
  private static final Duration RETRY = Duration.ofMillis(250);
  private static final int OBJECTS = 200;
  private static final List<String> CHANGED = List.of("cm-050", "cm-100", "cm-150", "cm-199");

  private final MockApiServer server = new MockApiServer();
  private final KubernetesClient admin = server.newClient();
  private final List<KubernetesController<ConfigMap>> controllers = new ArrayList<>();

  @AfterEach
  void tearDown() throws InterruptedException {
    for (KubernetesController<ConfigMap> c : controllers) {
      c.stop(Duration.ofSeconds(5));
    }
    server.close();
  }

  @Test
  void onTheFirstGain_aChangeMadeWhileTheReplayIsQueued_isReconciledBeforeTheReplayedKeys()
      throws Exception {
    createObjects();
    Gate gate = new Gate();
    gate.armed.set(true);
    KubernetesController<ConfigMap> c = controller(gate, b -> {});
    c.start();

    // The one worker holds the first key it took: the rest of the replay waits in the queue.
    assertTrue(gate.entered.await(30, TimeUnit.SECONDS), "a first reconcile");
    changeAndRelease(gate);

    await().atMost(Duration.ofSeconds(30)).until(() -> gate.reconciledAll(OBJECTS));
    assertChangesFirst(gate, 0);
  }

  @Test
  void onARegain_aChangeMadeWhileTheReplayIsQueued_isReconciledBeforeTheReplayedKeys()
      throws Exception {
    createObjects();
    Gate gate = new Gate();
    KubernetesController<ConfigMap> c = controller(gate, b -> {});
    c.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> gate.reconciledAll(OBJECTS));
    await().atMost(Duration.ofSeconds(10)).until(() -> idle(c));

    // Another holder takes the Lease and never renews it: the replica stops its workers, and
    // takes the Lease back once it expires, replaying its cache into a fresh queue.
    admin.leases().inNamespace(NS).withName("replay-leader").edit(l -> new LeaseBuilder(l)
        .editSpec().withHolderIdentity("intruder").endSpec().build());
    await().atMost(Duration.ofSeconds(10)).until(() -> !c.isLeading());
    int regainedAt = gate.order.size();
    gate.armed.set(true);
    assertTrue(gate.entered.await(30, TimeUnit.SECONDS), "a first reconcile after the regain");
    changeAndRelease(gate);

    await().atMost(Duration.ofSeconds(30))
        .until(() -> gate.order.size() >= regainedAt + OBJECTS + 1);
    assertChangesFirst(gate, regainedAt);
  }

  @Test
  void onAGain_noKeyIsReconciledTwiceBecauseOfTheReplay() throws Exception {
    createObjects();
    Map<String, AtomicInteger> adds = new ConcurrentHashMap<>();
    CountDownLatch firstReconcile = new CountDownLatch(1);
    CountDownLatch replayed = new CountDownLatch(OBJECTS + 1);
    Map<String, AtomicInteger> reconciles = new ConcurrentHashMap<>();
    AtomicBoolean waitedOnce = new AtomicBoolean();
    // The second add of an object is its replay. The replay waits (up to a second) for a
    // reconcile to start, and the first reconcile waits for the replay to end: had the workers
    // started before the replay, the first key would be re-added while it is reconciled. (The
    // replay runs on the elector's thread: the wait is well within the renew deadline.)
    EventFilter<ConfigMap> replayWatch = new EventFilter<>() {
      @Override
      public boolean onAdd(ConfigMap object) {
        int n = adds.computeIfAbsent(object.getMetadata().getName(), k -> new AtomicInteger())
            .incrementAndGet();
        if (n == 2) {
          if (waitedOnce.compareAndSet(false, true)) {
            awaitQuietly(firstReconcile, 1);
          }
          replayed.countDown();
        }
        return true;
      }
    };
    KubernetesController<ConfigMap> c = KubernetesController.builder(admin, ConfigMap.class)
        .name("replay").inNamespace(NS)
        .withEventFilter(replayWatch)
        .reconciler(request -> {
          firstReconcile.countDown();
          awaitQuietly(replayed, 10);
          reconciles.computeIfAbsent(request.key().name(), k -> new AtomicInteger())
              .incrementAndGet();
          return Result.success();
        })
        .leaderElection(election("a"))
        .build();
    controllers.add(c);
    c.start();

    await().atMost(Duration.ofSeconds(30)).until(() -> reconciles.size() == OBJECTS + 1
        && idle(c));
    List<String> twice = reconciles.entrySet().stream().filter(e -> e.getValue().get() > 1)
        .map(e -> e.getKey() + " x" + e.getValue().get()).toList();
    assertEquals(List.of(), twice, "keys reconciled more than once on gaining the Lease");
  }

  @Test
  void thePriorities_areTheBuilders_andAReplayAboveTheEventsIsRefused() throws Exception {
    admin.configMaps().inNamespace(NS).resource(SecretCopies.source("a", "1")).create();
    Map<String, Integer> priorities = new ConcurrentHashMap<>();
    KubernetesController<ConfigMap> c = KubernetesController.builder(admin, ConfigMap.class)
        .name("prio").inNamespace(NS)
        .priorities(7, 3)
        .reconciler(request -> {
          priorities.put(request.key().name() + "@" + SecretCopies.value(
              request.object().orElseThrow()), request.context().priority());
          return Result.success();
        })
        .build();
    controllers.add(c);
    c.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> priorities.containsKey("a@1"));
    admin.configMaps().inNamespace(NS).withName("a")
        .edit(cm -> new ConfigMapBuilder(cm).withData(Map.of("value", "2")).build());
    await().atMost(Duration.ofSeconds(10)).until(() -> priorities.containsKey("a@2"));
    assertEquals(Map.of("a@1", 3, "a@2", 7), priorities, "the initial list, then an event");

    KubernetesControllerBuilder<ConfigMap> b = KubernetesController.builder(admin,
        ConfigMap.class);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> b.priorities(0, 1));
    assertTrue(e.getMessage().startsWith("replayPriority must not be above eventPriority"),
        e.getMessage());
    b.priorities(5, 5); // equal: one line, first come first served
  }

  @Test
  void aQueueWithoutPriorities_getsEverythingAtPriorityZero() throws Exception {
    admin.configMaps().inNamespace(NS).resource(SecretCopies.source("a", "1")).create();
    admin.configMaps().inNamespace(NS).resource(SecretCopies.source("b", "1")).create();
    for (Consumer<dev.workqueue.controller.ControllerBuilder<ObjectKey>> options : List.of(
        (Consumer<dev.workqueue.controller.ControllerBuilder<ObjectKey>>)
            o -> o.priorityQueue(false),
        o -> o.queue(() -> WorkQueue.<ObjectKey>builder()
            .buildRateLimiting(RateLimiters.defaultControllerRateLimiter())))) {
      Map<String, Integer> priorities = new ConcurrentHashMap<>();
      KubernetesController<ConfigMap> c = KubernetesController.builder(admin, ConfigMap.class)
          .name("plain-" + controllers.size()).inNamespace(NS)
          .reconciler(request -> {
            priorities.put(request.key().name(), request.context().priority());
            return Result.success();
          })
          .controller(options)
          .leaderElection(election("p" + controllers.size()))
          .build();
      controllers.add(c);
      c.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> priorities.size() == 2);
      assertEquals(Map.of("a", 0, "b", 0), priorities);
      c.stop(Duration.ofSeconds(5));
    }
  }

  // ---- helpers ----

  /** Records the order of reconciles; while armed, holds the first one until released. */
  private static final class Gate {
    final AtomicBoolean armed = new AtomicBoolean();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<String> order = Collections.synchronizedList(new ArrayList<>());
    volatile CountDownLatch marker = new CountDownLatch(1);

    ObjectReconciler<ConfigMap> reconciler() {
      return request -> {
        String value = request.object().map(SecretCopies::value).orElse("");
        order.add(request.key().name() + (value.equals("changed") ? "*" : ""));
        if (armed.compareAndSet(true, false)) {
          entered.countDown();
          awaitQuietly(release, 30);
        }
        return Result.success();
      };
    }

    /** Sees the marker's update: every update before it has gone through the handler. */
    EventFilter<ConfigMap> filter() {
      return new EventFilter<>() {
        @Override
        public boolean onUpdate(ConfigMap old, ConfigMap now) {
          if (now.getMetadata().getName().equals("marker")) {
            marker.countDown();
            return false;
          }
          return true;
        }
      };
    }

    boolean reconciledAll(int objects) {
      synchronized (order) {
        return order.stream().map(k -> k.replace("*", "")).distinct().count() >= objects + 1;
      }
    }
  }

  private void createObjects() {
    for (int i = 0; i < OBJECTS; i++) {
      admin.configMaps().inNamespace(NS)
          .resource(SecretCopies.source(String.format("cm-%03d", i), "v1")).create();
    }
    admin.configMaps().inNamespace(NS).resource(SecretCopies.source("marker", "0")).create();
  }

  private KubernetesController<ConfigMap> controller(Gate gate,
      Consumer<KubernetesControllerBuilder<ConfigMap>> more) {
    KubernetesControllerBuilder<ConfigMap> b = KubernetesController.builder(admin,
        ConfigMap.class)
        .name("replay").inNamespace(NS)
        .withEventFilter(gate.filter())
        .reconciler(gate.reconciler())
        .leaderElection(election("a"));
    more.accept(b);
    KubernetesController<ConfigMap> c = b.build();
    controllers.add(c);
    return c;
  }

  private static LeaderElection election(String id) {
    return LeaderElection.lease(NS, "replay-leader").withIdentity(id)
        .withDurations(LEASE, RENEW, RETRY);
  }

  /** Changes the four objects, waits until their events are queued, releases the worker. */
  private void changeAndRelease(Gate gate) throws InterruptedException {
    gate.marker = new CountDownLatch(1);
    for (String name : CHANGED) {
      admin.configMaps().inNamespace(NS).withName(name)
          .edit(cm -> new ConfigMapBuilder(cm).withData(Map.of("value", "changed")).build());
    }
    admin.configMaps().inNamespace(NS).withName("marker").edit(cm -> new ConfigMapBuilder(cm)
        .withData(Map.of("value", "" + System.nanoTime())).build());
    assertTrue(gate.marker.await(30, TimeUnit.SECONDS), "the events reached the handler");
    gate.release.countDown();
  }

  /**
   * The reconciles that saw the changes come right after the one that was running (from
   * {@code from} on): each of the four within the first five.
   */
  private static void assertChangesFirst(Gate gate, int from) {
    List<String> order;
    synchronized (gate.order) {
      order = List.copyOf(gate.order.subList(from, gate.order.size()));
    }
    for (String name : CHANGED) {
      int at = order.indexOf(name + "*");
      assertTrue(at >= 1 && at <= CHANGED.size(), name + " was reconciled " + at
          + " reconciles after the one running when it changed, behind replayed keys; the"
          + " first reconciles: " + order.subList(0, Math.min(12, order.size())));
    }
  }

  private static boolean idle(KubernetesController<ConfigMap> c) {
    ControllerStatus s = c.controller().status();
    return s.queued() == 0 && s.waiting() == 0 && s.busyWorkers() == 0;
  }

  private static void awaitQuietly(CountDownLatch latch, int seconds) {
    try {
      latch.await(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
