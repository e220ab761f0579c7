package dev.workqueue.kubernetes.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MockApiServerTest {
  private static final String NS = "fixture";

  private final MockApiServer server = new MockApiServer();

  @AfterEach
  void tearDown() {
    server.close();
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder().withNewMetadata().withNamespace(NS).withName(name)
        .endMetadata().withData(Map.of("k", "v")).build();
  }

  @Test
  void seededObjects_areListedByEveryClient() {
    server.seed(configMap("a"), configMap("b"));
    ConfigMap c = server.create(configMap("c"));
    assertTrue(c.getMetadata().getResourceVersion() != null, "stored");

    for (KubernetesClient client : List.of(server.newClient(), server.newClient())) {
      assertEquals(List.of("a", "b", "c"), client.configMaps().inNamespace(NS).list().getItems()
          .stream().map(cm -> cm.getMetadata().getName()).sorted().toList());
    }
  }

  @Test
  void aSecondCreate_isAConflict() {
    server.create(configMap("a"));
    KubernetesClientException e = assertThrows(KubernetesClientException.class,
        () -> server.create(configMap("a")));
    assertEquals(409, e.getCode());
  }

  @Test
  void theMockServersRequestLog_isHeldAtWarning() {
    System.gc(); // a logger held weakly only would be collected and come back at INFO
    assertEquals(Level.WARNING, Logger.getLogger("io.fabric8.mockwebserver").getLevel());
  }

  @Test
  void aPartitionedClient_getsNoAnswerWhileTheFlagIsSet_andItsRetryGoesThroughOnceCleared()
      throws Exception {
    AtomicBoolean partitioned = new AtomicBoolean(true);
    KubernetesClient client = server.newClient(partitioned);
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      // fabric8 retries a refused connection with back-off (about 20 s in all): each try is
      // sent again, and turned away again while the flag is set.
      Future<Integer> listed = caller.submit(
          () -> client.configMaps().inNamespace(NS).list().getItems().size());
      assertThrows(TimeoutException.class, () -> listed.get(500, TimeUnit.MILLISECONDS));
      partitioned.set(false);
      assertEquals(0, listed.get(15, TimeUnit.SECONDS));
    } finally {
      caller.shutdownNow();
    }
  }

  @Test
  void aClientThroughALink_getsNoAnswerWhileItIsDown_andGets403ForWhatItIsForbidden()
      throws Exception {
    ApiServerLink link = server.newLink();
    KubernetesClient client = server.newClient(link,
        request -> MockApiServer.isList(request, "secrets"));
    assertEquals(0, client.configMaps().inNamespace(NS).list().getItems().size());
    KubernetesClientException forbidden = assertThrows(KubernetesClientException.class,
        () -> client.secrets().inNamespace(NS).list());
    assertEquals(403, forbidden.getCode());

    link.down();
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<Integer> listed = caller.submit(
          () -> client.configMaps().inNamespace(NS).list().getItems().size());
      assertThrows(TimeoutException.class, () -> listed.get(500, TimeUnit.MILLISECONDS));
      link.up();
      assertEquals(0, listed.get(15, TimeUnit.SECONDS));
    } finally {
      caller.shutdownNow();
    }
  }

  @Test
  void anInterceptedClient_showsEachRequest_andTheServerCountsThem() {
    List<String> seen = new CopyOnWriteArrayList<>();
    KubernetesClient client = server.newClient(new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        seen.add(request.method() + " " + request.uri().getPath());
      }
    });
    int before = server.requestCount();
    client.configMaps().inNamespace(NS).list();
    assertEquals(List.of("GET /api/v1/namespaces/fixture/configmaps"), seen);
    assertEquals(before + 1, server.requestCount());
  }

  @Test
  void aDelayedClient_holdsTheRequestsItPicks() {
    KubernetesClient client = server.newClient(
        request -> MockApiServer.isList(request, "configmaps") ? 200 : 0);
    long start = System.nanoTime();
    client.configMaps().inNamespace(NS).list();
    assertTrue(System.nanoTime() - start >= 200_000_000L, "held 200 ms");
  }
}
