package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.testing.ApiServerLink;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.kubernetes.testing.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A replica cut off from its API server while objects change and one is deleted: when it is
 * back, every change is reconciled, the delete included, and its health says not ready
 * meanwhile. On a real kube-apiserver, stopped and restarted (its etcd kept), and with the
 * watch's resourceVersion compacted away while it was cut (410 Gone, then a relist). On the mock
 * the same outage misses the delete: its watch resends every current object on reconnect and
 * never a delete, and no 410 makes the informer relist ({@link
 * #onTheMock_aDeleteMadeWhileTheWatchWasCut_isNeverSeen_theMocksLimit}).
 */
@Timeout(180)
@ExtendWith(ApiServers.class)
class ApiServerOutageTest {
  private static final String DELETED = "<deleted>";
  private static final int OBJECTS = 5;

  private final List<AutoCloseable> toClose = new ArrayList<>();
  /** Object name to the value its last reconcile saw, or {@link #DELETED}. */
  private final Map<String, String> seen = new ConcurrentHashMap<>();
  private final AtomicInteger configMapLists = new AtomicInteger();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  @Test
  @Tag(ApiServers.TAG)
  void onARealServer_stoppedAndRestartedWithItsEtcd_changesAndADeleteMadeMeanwhileAreReconciled()
      throws Exception {
    RealApiServer server = ApiServers.startReal(RealApiServer.builder(), NS);
    toClose.add(server);
    KubernetesController<ConfigMap> c = startSeeded(server.newClient(), server.newClient());
    // A second API server on the same etcd: the replica's is down, the cluster is not.
    KubernetesClient other = server.newClientOfSecondApiServer();

    server.stopApiServer();
    await().atMost(Duration.ofSeconds(30)).until(() -> !c.health().isReady());
    changeWhileAway(other);
    assertFalse(c.health().isReady(), "not ready while its API server is down: " + c.health());

    server.startApiServer();
    awaitReconciled(c);
  }

  @Test
  @Tag(ApiServers.TAG)
  void onARealServer_aWatchWhoseResourceVersionWasCompactedAway_gets410_relistsAndConverges()
      throws Exception {
    // No watch cache: a watch is served from etcd, which answers a compacted revision with 410.
    RealApiServer server = ApiServers.startReal(
        RealApiServer.builder().apiServerFlag("--watch-cache=false"), NS);
    toClose.add(server);
    ApiServerLink link = server.newLink();
    KubernetesController<ConfigMap> c =
        startSeeded(server.newClient(), server.newClient(link, countingLists()));
    int listsBefore = configMapLists.get();

    link.down(); // the watch ends; its reconnects are refused
    await().atMost(Duration.ofSeconds(30)).until(() -> !c.health().isReady());
    KubernetesClient admin = server.newClient();
    changeWhileAway(admin);
    server.compactEtcd(server.etcdRevision()); // the watch's resourceVersion is gone

    link.up();
    awaitReconciled(c);
    assertTrue(configMapLists.get() > listsBefore,
        "the informer re-listed after 410 Gone: " + configMapLists.get() + " lists");
  }

  /**
   * The same outage on the mock, through a link taken down and up: the change made meanwhile
   * and the object created after the delete are reconciled (the reconnected watch resends every
   * current object), but the delete before them never is: the mock's limit, not the toolkit's.
   */
  @Test
  void onTheMock_aDeleteMadeWhileTheWatchWasCut_isNeverSeen_theMocksLimit() throws Exception {
    MockApiServer server = new MockApiServer();
    toClose.add(server);
    ApiServerLink link = server.newLink();
    KubernetesController<ConfigMap> c =
        startSeeded(server.newClient(), server.newClient(link, request -> false));

    link.down();
    await().atMost(Duration.ofSeconds(30)).until(() -> !c.health().isReady());
    changeWhileAway(server.newClient());

    link.up();
    await().atMost(Duration.ofSeconds(30)).until(() -> "v1".equals(seen.get("cm-5"))
        && "v2".equals(seen.get("cm-0")) && c.health().isReady());
    // cm-5 was created after cm-1 was deleted: a real server's watch (or relist) would have
    // delivered the delete first.
    assertEquals("v1", seen.get("cm-1"), "the delete was never reconciled");
    assertTrue(c.cache().list().stream().anyMatch(cm -> cm.getMetadata().getName()
        .equals("cm-1")), "the deleted object is still in the replica's cache");
  }

  // ---- helpers ----

  /** Creates cm-0..cm-4 (v1), starts a replica on {@code client}, and waits for it to see them. */
  private KubernetesController<ConfigMap> startSeeded(KubernetesClient admin,
      KubernetesClient client) throws InterruptedException {
    for (int i = 0; i < OBJECTS; i++) {
      admin.configMaps().inNamespace(NS).resource(SecretCopies.source("cm-" + i, "v1")).create();
    }
    KubernetesController<ConfigMap> c = KubernetesController.builder(client, ConfigMap.class)
        .name("outage").inNamespace(NS)
        .reconciler(request -> {
          seen.put(request.key().name(),
              request.object().map(SecretCopies::value).orElse(DELETED));
          return Result.success();
        })
        .build();
    toClose.add(() -> c.stop(Duration.ofSeconds(5)));
    c.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == OBJECTS);
    return c;
  }

  /** While the replica is away: cm-0 changes, cm-1 is deleted, then cm-5 is created. */
  private static void changeWhileAway(KubernetesClient admin) {
    admin.configMaps().inNamespace(NS).withName("cm-0")
        .edit(cm -> new ConfigMapBuilder(cm).withData(Map.of("value", "v2")).build());
    admin.configMaps().inNamespace(NS).withName("cm-1").delete();
    admin.configMaps().inNamespace(NS).resource(SecretCopies.source("cm-5", "v1")).create();
  }

  /** Every change made while away was reconciled, the delete too, and the replica is ready. */
  private void awaitReconciled(KubernetesController<ConfigMap> c) {
    Map<String, String> expected = new TreeMap<>(Map.of("cm-0", "v2", "cm-1", DELETED,
        "cm-2", "v1", "cm-3", "v1", "cm-4", "v1", "cm-5", "v1"));
    await().atMost(Duration.ofSeconds(60)).until(() -> expected.equals(new TreeMap<>(seen)));
    await().atMost(Duration.ofSeconds(30)).until(() -> c.health().isReady());
  }

  private Interceptor countingLists() {
    return new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (MockApiServer.isList(request, "configmaps")) {
          configMapLists.incrementAndGet();
        }
      }
    };
  }
}
