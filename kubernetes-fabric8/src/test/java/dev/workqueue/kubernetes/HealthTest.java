package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.kubernetes.testing.ApiServerLink;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What {@link KubernetesController#health()} reports when the API server goes away and comes
 * back, when an informer cannot start, and when one stops for good.
 */
@Timeout(120)
class HealthTest {
  private final MockApiServer server = new MockApiServer();
  private final FakeClock clock = new FakeClock();
  private KubernetesController<ConfigMap> controller;
  private Operator operator;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (controller != null) {
      controller.stop(Duration.ofSeconds(5));
    }
    if (operator != null) {
      operator.stop(Duration.ofSeconds(5));
    }
    server.close();
  }

  @Test
  void anApiServerOutage_makesTheControllerNotReadyButLive_untilItWatchesAgain() throws Exception {
    ApiServerLink link = server.newLink();
    KubernetesClient client = server.newClient(link, request -> false);
    controller = KubernetesController.builder(client, ConfigMap.class).inNamespace(NS)
        .clock(clock).reconciler(r -> null).build();
    controller.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> controller.health().isReady());

    link.down();
    await().atMost(Duration.ofSeconds(60)).until(() -> state() == Health.Watch.State.RECONNECTING);
    Health reconnecting = controller.health();
    assertTrue(reconnecting.isReady(), "a reconnect within the grace: " + reconnecting);

    clock.step(Health.RECONNECT_GRACE);
    Health down = controller.health();
    assertEquals(Health.Watch.State.DOWN, down.watches().get(0).state(), down.toString());
    assertEquals(Health.RECONNECT_GRACE, down.watches().get(0).notWatchingFor());
    assertFalse(down.isReady(), down.toString());
    assertTrue(down.isLive(), "fabric8 retries: a restart would not help " + down);
    assertTrue(down.cachesSynced(), "the caches did sync, once");

    server.newClient().configMaps().inNamespace(NS)
        .resource(SecretCopies.source("made-while-down", "1")).create();
    link.up();
    await().atMost(Duration.ofSeconds(90)).until(() -> controller.health().isReady());
    assertEquals(Health.Watch.State.WATCHING, state());
    await().atMost(Duration.ofSeconds(30)).until(() ->
        controller.cache().get(ObjectKey.of(NS, "made-while-down")).isPresent());
  }

  @Test
  void aWatchTheApiServerRefuses_isRetried_liveButNotReady_untilItIsAllowedAgain()
      throws Exception {
    AtomicBoolean forbidden = new AtomicBoolean();
    ApiServerLink link = server.newLink();
    KubernetesClient client = server.newClient(link, request -> forbidden.get()
        && request.uri().getPath().endsWith("/configmaps"));
    controller = KubernetesController.builder(client, ConfigMap.class).inNamespace(NS)
        .clock(clock).reconciler(r -> null).build();
    controller.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> controller.health().isReady());

    forbidden.set(true); // a role taken away: the watch's reconnects (and re-lists) get 403
    link.down();
    link.up();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      clock.step(Duration.ofSeconds(1));
      return state() == Health.Watch.State.DOWN;
    });
    Health refused = controller.health();
    assertFalse(refused.isReady(), refused.toString());
    assertTrue(refused.isLive(), "the informer retries: " + refused);

    forbidden.set(false);
    await().atMost(Duration.ofSeconds(90)).until(() -> controller.health().isReady());
  }

  /**
   * A watch down and refused (403): what fabric8 reports to the informer's exception handler
   * (its re-list after a 410 Gone fails, say; the mock never answers 410, so the test calls
   * the handler fabric8 calls) is the watch's error in the report, on the controller's own
   * informer and on an operator's shared one alike.
   */
  @ParameterizedTest(name = "operator: {0}")
  @ValueSource(booleans = {false, true})
  void aFailureFabric8Reports_isTheDownWatchsError_alsoOnAnOperatorsSharedInformer(
      boolean operated) throws Exception {
    AtomicBoolean forbidden = new AtomicBoolean();
    ApiServerLink link = server.newLink();
    KubernetesClient client = server.newClient(link, request -> forbidden.get());
    KubernetesControllerBuilder<ConfigMap> b = KubernetesController.builder(client,
        ConfigMap.class).inNamespace(NS).clock(clock).reconciler(r -> null);
    if (operated) { // its informer is the operator's, shared, not the controller's own
      operator = Operator.builder(client).controller(b).build();
      operator.start();
    } else {
      controller = b.build();
      controller.start();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> watch(operated).state()
        == Health.Watch.State.WATCHING);
    forbidden.set(true);
    link.down();
    link.up();
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      clock.step(Duration.ofSeconds(1));
      return watch(operated).state() == Health.Watch.State.DOWN;
    });
    KubernetesController<?> c = operated ? operator.controllers().get(0) : controller;
    fabric8Handler(c.cache(ConfigMap.class).informer()).retryAfterException(true,
        new KubernetesClientException("Forbidden: the re-list was refused", 403, null));
    Health.Watch down = watch(operated);
    assertEquals(Health.Watch.State.DOWN, down.state());
    assertTrue(down.error().orElse("").contains("Forbidden"), down.toString());
  }

  /** The exception handler fabric8 7.8's informer calls (its reflector holds it). */
  private static ExceptionHandler fabric8Handler(SharedIndexInformer<?> informer)
      throws ReflectiveOperationException {
    Field reflector = informer.getClass().getDeclaredField("reflector");
    reflector.setAccessible(true);
    Object r = reflector.get(informer);
    Field handler = r.getClass().getDeclaredField("handler");
    handler.setAccessible(true);
    return (ExceptionHandler) handler.get(r);
  }

  private Health.Watch watch(boolean operated) {
    Health h = operated ? operator.health().controllers().get("configmap") : controller.health();
    return h.watches().isEmpty() ? new Health.Watch("-", Health.Watch.State.SYNCING,
        Duration.ZERO, java.util.Optional.empty()) : h.watches().get(0);
  }

  @Test
  void anInformerThatCannotList_failsTheStart_andLeavesTheControllerNotLive() throws Exception {
    KubernetesClient client = server.newClient(server.newLink(),
        request -> MockApiServer.isList(request, "secrets"));
    controller = KubernetesController.builder(client, ConfigMap.class).inNamespace(NS)
        .owns(Secret.class).reconciler(r -> null).build();
    IllegalStateException e = assertThrows(IllegalStateException.class, controller::start);
    assertThrows(IllegalStateException.class, controller::start, "a failed start is final");

    Health failed = controller.health();
    assertFalse(failed.isLive(), "only a restart helps: " + failed);
    assertFalse(failed.isReady(), failed.toString());
    assertEquals(e.getMessage(), failed.failure().orElseThrow());
    assertTrue(e.getMessage().startsWith("controller configmap: an informer failed to start: ")
        && e.getMessage().contains("Forbidden"), e.getMessage());
    assertEquals(Health.Watch.State.STOPPED, failed.watches().get(0).state(), "ConfigMap");
    Health.Watch secrets = failed.watches().get(1);
    assertEquals("Secret", secrets.type());
    assertEquals(Health.Watch.State.FAILED, secrets.state(), failed.toString());
    assertTrue(secrets.error().orElseThrow().contains("Forbidden"), secrets.toString());
  }

  @Test
  void aSharedInformerStoppedByItsOwner_leavesTheControllerNotLive() throws Exception {
    KubernetesClient client = server.newClient();
    SharedIndexInformer<Secret> shared = client.secrets().inNamespace(NS).inform();
    controller = KubernetesController.builder(client, ConfigMap.class).inNamespace(NS)
        .owns(Secret.class).withInformer(Secret.class, shared).reconciler(r -> null).build();
    controller.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> controller.health().isReady());

    shared.stop(); // its cache no longer follows the API server, and never will again
    await().atMost(Duration.ofSeconds(30)).until(() -> !controller.health().isLive());
    Health failed = controller.health();
    assertFalse(failed.isReady());
    assertEquals("controller configmap: the informer of Secret stopped for good: the informer"
        + " was stopped, not by this controller", failed.failure().orElseThrow());
  }

  @Test
  void aStoppedController_isLiveAndNotReady() throws Exception {
    controller = KubernetesController.builder(server.newClient(), ConfigMap.class)
        .inNamespace(NS).reconciler(r -> null).build();
    assertTrue(controller.health().watches().isEmpty(), "not started");
    controller.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> controller.health().isReady());
    controller.stop(Duration.ofSeconds(5));
    Health stopped = controller.health();
    assertTrue(stopped.isLive(), "stopped on purpose: " + stopped);
    assertFalse(stopped.isReady());
    assertEquals(Health.Watch.State.STOPPED, stopped.watches().get(0).state());
    controller = null;
  }

  /** The state of the reconciled type's watch. */
  private Health.Watch.State state() {
    return controller.health().watches().get(0).state();
  }
}
