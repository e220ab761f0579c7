package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One replica, no leader election: informers, cache, owner mapping and the reconciler. */
@Timeout(60)
class KubernetesControllerTest {
  private final MockApiServer server = new MockApiServer();
  private final KubernetesClient client = server.newClient();
  private final SecretCopies.Checker checker = new SecretCopies.Checker();
  private KubernetesController<ConfigMap> controller;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (controller != null) {
      controller.stop(Duration.ofSeconds(5));
    }
    server.close();
  }

  @Test
  void reconcilesEveryObject_andWhatItOwns_withTheObjectFromTheCache() throws Exception {
    for (int i = 0; i < 5; i++) {
      client.configMaps().inNamespace(NS).resource(SecretCopies.source("cm-" + i, "v" + i))
          .create();
    }
    Set<String> seenWithoutObject = ConcurrentHashMap.newKeySet();
    Set<String> contexts = ConcurrentHashMap.newKeySet();
    ObjectReconciler<ConfigMap> copies = SecretCopies.reconciler("only", client, checker);
    controller = KubernetesController.builder(client, ConfigMap.class)
        .inNamespace(NS)
        .owns(Secret.class)
        .reconciler(request -> {
          if (request.object().isEmpty()) {
            seenWithoutObject.add(request.key().name());
          }
          contexts.add(request.context().controller() + " attempt " + request.context().attempt());
          return copies.reconcile(request);
        })
        .controller(c -> c.workers(2))
        .build();
    assertTrue(!controller.health().cachesSynced(), "not started");
    controller.start();
    assertTrue(controller.cache().hasSynced(), "start returns once the caches are synced");
    assertTrue(controller.isLeading());
    Health health = controller.health();
    assertTrue(health.isReady(), health.toString());
    assertEquals(Health.Leadership.NOT_ELECTING, health.leadership());
    assertEquals(2, health.workers().configuredWorkers());

    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(client).isEmpty());
    assertEquals(Set.of(), seenWithoutObject, "workers start after the cache has every object");
    assertTrue(contexts.contains("configmap attempt 1")
        && contexts.stream().allMatch(c -> c.startsWith("configmap attempt ")), "" + contexts);

    // A change of the reconciled object.
    client.configMaps().inNamespace(NS).withName("cm-1")
        .edit(cm -> new ConfigMapBuilder(cm).withData(Map.of("value", "changed")).build());
    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(client).isEmpty());

    // A change of an owned object maps to its owner, which puts it back.
    client.secrets().inNamespace(NS).withName("cm-2").delete();
    await().atMost(Duration.ofSeconds(30))
        .until(() -> client.secrets().inNamespace(NS).withName("cm-2").get() != null);

    // The owned type's cache, for a reconciler that reads related objects.
    assertTrue(controller.cache(Secret.class).get(ObjectKey.of(NS, "cm-1")).isPresent());
    assertThrows(IllegalArgumentException.class,
        () -> controller.cache(io.fabric8.kubernetes.api.model.Pod.class));

    // A deletion reaches the reconciler with no object.
    client.configMaps().inNamespace(NS).withName("cm-3").delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> seenWithoutObject.contains("cm-3"));
    assertEquals(List.of(), checker.violations);
    assertTrue(controller.health().workers().sinceLastReconcile().isPresent());
  }

  @Test
  void watches_mapsAnotherTypeToKeys_andTheFilterDropsEvents() throws Exception {
    client.configMaps().inNamespace(NS).resource(SecretCopies.source("a", "1")).create();
    client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder(
        SecretCopies.source("skipped", "1")).editMetadata().addToLabels("skip", "yes")
        .endMetadata().build()).create();
    Set<String> reconciled = ConcurrentHashMap.newKeySet();
    controller = KubernetesController.builder(client, ConfigMap.class)
        .inNamespace(NS)
        .withEventFilter(EventFilter.matching(
            cm -> cm.getMetadata().getLabels() == null
                || !cm.getMetadata().getLabels().containsKey("skip")))
        // a Secret named "touch-X" asks for ConfigMap X
        .watches(Secret.class, s -> s.getMetadata().getName().startsWith("touch-")
            ? List.of(ObjectKey.of(NS, s.getMetadata().getName().substring(6))) : List.of())
        .reconciler(request -> {
          reconciled.add(request.key().name() + (request.object().isPresent() ? "" : "?"));
          return null;
        })
        .build();
    controller.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> reconciled.contains("a"));

    client.secrets().inNamespace(NS).resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
        .withNewMetadata().withName("touch-b").withNamespace(NS).endMetadata().build()).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> reconciled.contains("b?"));
    assertTrue(!reconciled.contains("skipped"), "filtered out: " + reconciled);
  }

  @Test
  void resyncEvery_reconcilesEveryCachedObjectOncePerPeriod_onTheControllersClock()
      throws Exception {
    for (String n : List.of("a", "b")) {
      client.configMaps().inNamespace(NS).resource(SecretCopies.source(n, "1")).create();
    }
    client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder(
        SecretCopies.source("filtered", "1")).editMetadata().addToLabels("skip", "yes")
        .endMetadata().build()).create();
    FakeClock clock = new FakeClock();
    Map<String, java.util.concurrent.atomic.AtomicInteger> counts = new ConcurrentHashMap<>();
    controller = KubernetesController.builder(client, ConfigMap.class)
        .inNamespace(NS)
        .clock(clock)
        .resyncEvery(Duration.ofMinutes(10))
        .withEventFilter(EventFilter.matching(cm -> cm.getMetadata().getLabels() == null
            || !cm.getMetadata().getLabels().containsKey("skip")))
        .reconciler(request -> {
          counts.computeIfAbsent(request.key().name(),
              k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
          return null;
        })
        .build();
    controller.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> total(counts) == 2);

    clock.step(Duration.ofMinutes(9));
    assertEquals(2, total(counts), "not before the period");
    clock.step(Duration.ofMinutes(1));
    await().atMost(Duration.ofSeconds(30)).until(() -> total(counts) == 4);
    assertEquals(2, counts.get("a").get());
    clock.step(Duration.ofMinutes(10));
    await().atMost(Duration.ofSeconds(30)).until(() -> total(counts) == 6);

    assertEquals(null, counts.get("filtered"), "the resync goes through the event filter");

    controller.stop(Duration.ofSeconds(5));
    clock.step(Duration.ofMinutes(10));
    assertEquals(6, total(counts), "a stopped controller does not resync");
    controller = null;
  }

  @Test
  void maxReconcileInterval_reconcilesEachObjectThatOften_untilItIsDeleted() throws Exception {
    client.configMaps().inNamespace(NS).resource(SecretCopies.source("a", "1")).create();
    FakeClock clock = new FakeClock();
    Map<String, java.util.concurrent.atomic.AtomicInteger> counts = new ConcurrentHashMap<>();
    java.util.Set<String> sawDeleted = ConcurrentHashMap.newKeySet();
    controller = KubernetesController.builder(client, ConfigMap.class)
        .inNamespace(NS)
        .clock(clock)
        .maxReconcileInterval(Duration.ofMinutes(5))
        .reconciler(request -> {
          counts.computeIfAbsent(request.key().name(),
              k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
          if (request.object().isEmpty()) {
            sawDeleted.add(request.key().name());
          }
          return null;
        })
        .build();
    controller.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> total(counts) == 1
        && controller.controller().status().waiting() == 1);
    clock.step(Duration.ofMinutes(5));
    await().atMost(Duration.ofSeconds(30)).until(() -> total(counts) == 2
        && controller.controller().status().waiting() == 1);

    client.configMaps().inNamespace(NS).withName("a").delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> sawDeleted.contains("a")
        && controller.controller().status().busyWorkers() == 0);
    int afterDelete = total(counts);
    clock.step(Duration.ofMinutes(5)); // the interval scheduled before the delete fires once
    await().atMost(Duration.ofSeconds(30)).until(() ->
        controller.controller().status().waiting() == 0
            && controller.controller().status().busyWorkers() == 0
            && controller.controller().status().queued() == 0);
    int settled = total(counts);
    assertTrue(settled <= afterDelete + 1, settled + " after " + afterDelete);
    clock.step(Duration.ofMinutes(5));
    assertEquals(0, controller.controller().status().waiting(), "a deleted object is let go");
    assertEquals(settled, total(counts));
  }

  private static int total(Map<String, java.util.concurrent.atomic.AtomicInteger> counts) {
    return counts.values().stream().mapToInt(java.util.concurrent.atomic.AtomicInteger::get)
        .sum();
  }

  @Test
  void aSharedInformer_isUsed_andLeftRunningAtStop() throws Exception {
    client.configMaps().inNamespace(NS).resource(SecretCopies.source("a", "1")).create();
    SharedIndexInformer<ConfigMap> shared = client.configMaps().inNamespace(NS).inform();
    Set<String> reconciled = ConcurrentHashMap.newKeySet();
    controller = KubernetesController.builder(client, ConfigMap.class)
        .withInformer(ConfigMap.class, shared)
        .reconciler(request -> {
          reconciled.add(request.key().name() + "=" + SecretCopies.value(request.object()
              .orElseThrow()));
          return null;
        })
        .build();
    controller.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> reconciled.contains("a=1"));
    client.configMaps().inNamespace(NS).resource(SecretCopies.source("b", "2")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> reconciled.contains("b=2"));
    assertTrue(controller.cache().get(ObjectKey.of(NS, "b")).isPresent(), "its cache");

    controller.stop(Duration.ofSeconds(5));
    controller = null;
    assertTrue(shared.isRunning(), "the caller's informer is the caller's to stop");
    shared.close();
  }

  @Test
  void aStopBeforeStart_makesStartRefuse() throws Exception {
    controller = KubernetesController.builder(client, ConfigMap.class).inNamespace(NS)
        .reconciler(r -> null).build();
    controller.stop(Duration.ZERO);
    assertEquals("controller configmap was already stopped",
        assertThrows(IllegalStateException.class, controller::start).getMessage());
    assertTrue(!controller.health().cachesSynced());
  }

  @Test
  void aStartWhoseCachesCannotSync_failsOnce_andStopsWhatItStarted() throws Exception {
    AtomicBoolean cut = new AtomicBoolean(true);
    KubernetesClient unreachable = server.newClient(cut);
    controller = KubernetesController.builder(unreachable, ConfigMap.class).inNamespace(NS)
        .cacheSyncTimeout(Duration.ofSeconds(1))
        .reconciler(r -> null).build();
    IllegalStateException e = assertThrows(IllegalStateException.class, controller::start);
    assertTrue(e.getMessage().startsWith("controller configmap: "), e.getMessage());
    assertEquals("controller configmap was already stopped",
        assertThrows(IllegalStateException.class, controller::start).getMessage(),
        "a failed start is final");
    assertTrue(!controller.health().cachesSynced());
    assertEquals(Optional.of(e.getMessage()), controller.health().failure(),
        "not live: a restart is the cure");
  }

  @Test
  void misuse_isRefusedNamingTheArgument() throws Exception {
    assertEquals("reconciler must be set", assertThrows(IllegalStateException.class,
        () -> KubernetesController.builder(client, ConfigMap.class).build()).getMessage());
    assertEquals("client must not be null", assertThrows(NullPointerException.class,
        () -> KubernetesController.builder(null, ConfigMap.class)).getMessage());
    assertEquals("an informer was given for Secret, which the controller neither reconciles,"
        + " owns nor watches", assertThrows(IllegalStateException.class,
            () -> KubernetesController.builder(client, ConfigMap.class).reconciler(r -> null)
                .withInformer(io.fabric8.kubernetes.api.model.Secret.class,
                    client.secrets().inNamespace(NS).runnableInformer(0)).build())
            .getMessage());
    assertEquals("period must be positive, was PT0S", assertThrows(
        IllegalArgumentException.class, () -> KubernetesController.builder(client,
            ConfigMap.class).resyncEvery(Duration.ZERO)).getMessage());
    assertEquals("namespace must not be empty", assertThrows(IllegalArgumentException.class,
        () -> KubernetesController.builder(client, ConfigMap.class).inNamespace(""))
        .getMessage());
    controller = KubernetesController.builder(client, ConfigMap.class).inNamespace(NS)
        .reconciler(r -> null).build();
    assertThrows(IllegalStateException.class, controller::cache, "not started");
    controller.start();
    assertEquals("controller configmap was already started",
        assertThrows(IllegalStateException.class, controller::start).getMessage());
  }

  /** A stop while the start waits for the caches ends the wait: the start fails, "stopped". */
  @Test
  void aStopDuringTheInitialSync_endsTheStart_insteadOfWaitingForTheCaches() throws Exception {
    KubernetesClient client = server.newClient(new AtomicBoolean(true), true); // hang
    KubernetesController<ConfigMap> c = KubernetesController.builder(client, ConfigMap.class)
        .inNamespace(NS).cacheSyncTimeout(Duration.ofMinutes(10)).reconciler(r -> null).build();
    CompletableFuture<Void> start = CompletableFuture.runAsync(() -> {
      try {
        c.start();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    await().atMost(Duration.ofSeconds(30)).until(() -> !c.health().watches().isEmpty());
    CompletableFuture<Boolean> stop = CompletableFuture.supplyAsync(() -> {
      try {
        return c.stop(Duration.ofSeconds(1)).completed();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    assertTrue(stop.get(30, TimeUnit.SECONDS));
    ExecutionException failed = assertThrows(ExecutionException.class,
        () -> start.get(30, TimeUnit.SECONDS));
    assertTrue(failed.getCause().getMessage().contains("stopped while"), failed.toString());
    assertTrue(c.health().isLive(), "stopped on purpose, not failed: " + c.health());
  }
}
