package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.controller.ControllerStatus;
import dev.workqueue.kubernetes.Health.Leadership;
import dev.workqueue.kubernetes.Health.Watch;
import dev.workqueue.kubernetes.testing.ApiServerLink;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.metrics.micrometer.MicrometerMetricsProvider;
import dev.workqueue.testsupport.ToolkitThreads;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ManagementServer} over real HTTP on loopback, read with {@code java.net.http}: its
 * probes follow a controller's health on the mock API server (an outage timed on a {@link
 * FakeClock}, a failed start), its {@code /metrics} is Prometheus text with the toolkit's
 * metric names, and its answers to what it does not serve.
 */
@Timeout(120)
class ManagementServerTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private MockApiServer apiServer;
  private ManagementServer server;

  @AfterEach
  void tearDown() throws Exception {
    if (server != null) {
      server.close();
    }
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    if (apiServer != null) {
      apiServer.close();
    }
  }

  @Test
  void readyz_isNotReadyNamingTheDownWatch_whileTheApiServerIsAway_andHealthzStaysLive()
      throws Exception {
    apiServer = new MockApiServer();
    FakeClock clock = new FakeClock();
    ApiServerLink link = apiServer.newLink();
    KubernetesController<ConfigMap> controller = started(KubernetesController
        .builder(apiServer.newClient(link, request -> false), ConfigMap.class).name("configmaps")
        .inNamespace(NS).clock(clock).reconciler(r -> null).build());
    server = loopback().health("configmaps", controller::health).start();
    await().atMost(Duration.ofSeconds(30)).until(() -> get("/readyz").statusCode() == 200);
    assertEquals("[+]configmaps ok\nreadyz check passed\n", get("/readyz").body());

    link.down();
    await().atMost(Duration.ofSeconds(60)).until(() ->
        controller.health().watches().get(0).state() == Watch.State.RECONNECTING);
    assertEquals(200, get("/readyz").statusCode(), "a reconnect within the grace is ready");
    clock.step(Health.RECONNECT_GRACE);
    HttpResponse<String> down = get("/readyz");
    assertEquals(503, down.statusCode());
    assertTrue(down.body().startsWith("[-]configmaps: watch of ConfigMap DOWN for 5s"),
        down.body());
    assertTrue(down.body().endsWith("\nreadyz check failed\n"), down.body());
    assertEquals(200, get("/healthz").statusCode(), "fabric8 retries: live");

    link.up();
    await().atMost(Duration.ofSeconds(90)).until(() -> get("/readyz").statusCode() == 200);
  }

  @Test
  void healthz_is503WithTheFailure_afterAStartTheApiServerRefused() throws Exception {
    apiServer = new MockApiServer();
    KubernetesClient client = apiServer.newClient(apiServer.newLink(),
        request -> MockApiServer.isList(request, "secrets"));
    KubernetesController<ConfigMap> controller = KubernetesController
        .builder(client, ConfigMap.class).inNamespace(NS).owns(Secret.class)
        .reconciler(r -> null).build();
    closing.add(() -> controller.stop(Duration.ofSeconds(5)));
    assertThrows(IllegalStateException.class, controller::start);
    server = loopback().health("configmaps", controller::health).start();

    HttpResponse<String> healthz = get("/healthz");
    assertEquals(503, healthz.statusCode());
    assertTrue(healthz.body().startsWith("[-]configmaps: failed: controller configmap: an"
        + " informer failed to start: "), healthz.body());
    assertTrue(healthz.body().contains("Forbidden"), healthz.body());
    HttpResponse<String> readyz = get("/readyz");
    assertEquals(503, readyz.statusCode());
    assertTrue(readyz.body().contains("watch of Secret FAILED"), readyz.body());
  }

  @Test
  void metrics_isPrometheusText_withTheControllersMetricNames() throws Exception {
    apiServer = new MockApiServer();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MicrometerMetricsProvider metrics = MicrometerMetricsProvider.create(registry);
    AtomicInteger reconciles = new AtomicInteger();
    KubernetesController<ConfigMap> controller = started(KubernetesController
        .builder(apiServer.newClient(), ConfigMap.class).name("configmaps").inNamespace(NS)
        .metricsProvider(metrics).controller(c -> c.queueMetricsProvider(metrics))
        .reconciler(r -> {
          reconciles.incrementAndGet();
          return null;
        }).build());
    apiServer.newClient().configMaps().inNamespace(NS)
        .resource(SecretCopies.source("one", "1")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> reconciles.get() > 0);
    server = loopback().health("configmaps", controller::health).metrics(registry::scrape)
        .start();

    HttpResponse<String> scrape = get("/metrics");
    assertEquals(200, scrape.statusCode());
    assertEquals(ManagementServer.PROMETHEUS_TEXT,
        scrape.headers().firstValue("Content-Type").orElseThrow());
    Map<String, PrometheusText.Family> families = PrometheusText.parse(scrape.body());
    for (String[] m : new String[][] {{"workqueue_depth", "gauge", "name"},
        {"workqueue_adds_total", "counter", "name"},
        {"workqueue_queue_duration_seconds", "histogram", "name"},
        {"workqueue_work_duration_seconds", "histogram", "name"},
        {"workqueue_retries_total", "counter", "name"},
        {"controller_runtime_reconcile_total", "counter", "controller"},
        {"controller_runtime_reconcile_time_seconds", "histogram", "controller"},
        {"controller_runtime_active_workers", "gauge", "controller"},
        {"controller_runtime_max_concurrent_reconciles", "gauge", "controller"}}) {
      PrometheusText.Family f = families.get(m[0]);
      assertTrue(f != null, m[0] + " missing from:\n" + scrape.body());
      assertEquals(m[1], f.type(), m[0]);
      assertTrue(f.samples().stream().anyMatch(s -> "configmaps".equals(s.labels().get(m[2]))),
          m[0] + ": " + f.samples());
    }
    assertTrue(families.get("controller_runtime_reconcile_total").samples().stream()
        .anyMatch(s -> "success".equals(s.labels().get("result")) && s.value() >= 1),
        "the reconcile counted");
    assertEquals(200, send("HEAD", "/metrics").statusCode());
    // The parser is strict: a sample outside a TYPE, an unquoted label value, no newline.
    for (String bad : List.of("workqueue_depth 1\n", "# TYPE a gauge\na{x=1} 1\n",
        "# TYPE a gauge\na 1")) {
      assertThrows(IllegalArgumentException.class, () -> PrometheusText.parse(bad), bad);
    }
  }

  @Test
  void probes_aggregateTheSources_andNameEachReason() throws Exception {
    AtomicReference<Health> b = new AtomicReference<>(health(true, Leadership.LEADING));
    server = loopback().health("a", () -> health(true, Leadership.NOT_ELECTING))
        .health("b", b::get).start();
    assertEquals("[+]a ok\n[+]b ok\nreadyz check passed\n", get("/readyz").body());

    b.set(new Health(false, Leadership.SHARD_MEMBER_CUT_OFF, status(2, 2),
        List.of(new Watch("ConfigMap", Watch.State.SYNCING, Duration.ZERO, Optional.empty()),
            new Watch("Secret", Watch.State.DOWN, Duration.ofMillis(7250),
                Optional.of("HTTP 403\nForbidden"))), Optional.empty()));
    HttpResponse<String> readyz = get("/readyz");
    assertEquals(503, readyz.statusCode());
    assertEquals("[+]a ok\n[-]b: caches not synced; watch of ConfigMap SYNCING; watch of Secret"
        + " DOWN for 7.3s: HTTP 403 Forbidden; cut off from its shard Lease\n"
        + "readyz check failed\n", readyz.body());
    assertEquals(200, get("/healthz").statusCode(), "not ready, but live");

    b.set(new Health(true, Leadership.LEADING, status(2, 1), List.of(), Optional.empty()));
    HttpResponse<String> healthz = get("/healthz");
    assertEquals(503, healthz.statusCode());
    assertEquals("[+]a ok\n[-]b: workers died: 1 of 2 alive\nhealthz check failed\n",
        healthz.body());
    assertEquals(503, get("/readyz").statusCode(), "not live, so not ready");
  }

  @Test
  void aSourceThatThrows_is500_andTheServerGoesOnServing() throws Exception {
    AtomicReference<Supplier<Health>> source =
        new AtomicReference<>(() -> health(true, Leadership.NOT_ELECTING));
    server = loopback().health("flaky", () -> source.get().get()).metrics(() -> null).start();
    source.set(() -> {
      throw new IllegalStateException("broken");
    });
    HttpResponse<String> broken = get("/healthz");
    assertEquals(500, broken.statusCode());
    assertEquals("500 internal error: java.lang.IllegalStateException: broken\n", broken.body());
    source.set(() -> null);
    assertEquals(500, get("/readyz").statusCode());
    assertEquals(500, get("/metrics").statusCode(), "a scrape returning null");
    source.set(() -> health(true, Leadership.NOT_ELECTING));
    assertEquals(200, get("/healthz").statusCode());
  }

  @Test
  void answersWhatItDoesNotServe_with404or405_andHeadWithoutABody() throws Exception {
    server = loopback().health("a", () -> health(true, Leadership.NOT_ELECTING)).start();
    for (String path : List.of("/", "/metrics", "/healthz/", "/live", "/readyz/x")) {
      assertEquals(404, get(path).statusCode(), path);
    }
    assertEquals(200, get("/healthz?verbose").statusCode(), "a query is ignored");
    for (String method : List.of("POST", "PUT", "DELETE", "OPTIONS")) {
      HttpResponse<String> r = send(method, "/healthz");
      assertEquals(405, r.statusCode(), method);
      assertEquals("GET, HEAD", r.headers().firstValue("Allow").orElseThrow(), method);
    }
    HttpResponse<String> head = send("HEAD", "/readyz");
    assertEquals(200, head.statusCode());
    assertEquals("", head.body());
    assertEquals("text/plain; charset=utf-8",
        head.headers().firstValue("Content-Type").orElseThrow());

    ManagementServer metricsOnly = loopback().metrics(() -> "").start();
    closing.add(metricsOnly);
    HttpResponse<String> probe = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + metricsOnly.port() + "/healthz")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(404, probe.statusCode(), "no health source: no probes");
  }

  @Test
  void portZero_picksAFreePort_onDaemonThreads_andCloseStopsThem() throws Exception {
    server = loopback().health("a", () -> health(true, Leadership.NOT_ELECTING)).start();
    assertNotEquals(0, server.port());
    assertEquals(server.port(), server.address().getPort());
    assertEquals(200, get("/healthz").statusCode());
    int dispatchers = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("workqueue-management") || t.getName().equals("HTTP-Dispatcher")) {
        assertTrue(t.isDaemon(), t.getName());
        dispatchers += t.getName().equals("HTTP-Dispatcher") ? 1 : 0;
      }
    }
    assertEquals(1, dispatchers, "the JDK's dispatcher thread, started from a daemon thread");
    URI healthz = URI.create("http://127.0.0.1:" + server.port() + "/healthz");
    server.close();
    server.close(); // idempotent
    server = null;
    await().atMost(Duration.ofSeconds(10)).until(() -> ToolkitThreads.alive().isEmpty());
    assertThrows(IOException.class, () -> http.send(HttpRequest.newBuilder(healthz).build(),
        HttpResponse.BodyHandlers.ofString()), "no longer serving");
  }

  @Test
  void badArguments_areRefusedNamingTheArgument() {
    ManagementServer.Builder b = ManagementServer.builder();
    assertEquals("port must be within [0, 65535], was -1",
        assertThrows(IllegalArgumentException.class, () -> b.port(-1)).getMessage());
    assertEquals("port must be within [0, 65535], was 65536",
        assertThrows(IllegalArgumentException.class, () -> b.port(65536)).getMessage());
    assertEquals("health must not be null",
        assertThrows(NullPointerException.class, () -> b.health("a", null)).getMessage());
    assertEquals("name must not be null", assertThrows(NullPointerException.class,
        () -> b.health(null, () -> null)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> b.health(" ", () -> null));
    assertThrows(IllegalArgumentException.class, () -> b.health("a\nb", () -> null));
    assertEquals("scrape must not be null",
        assertThrows(NullPointerException.class, () -> b.metrics(null)).getMessage());
    assertEquals("address must not be null",
        assertThrows(NullPointerException.class, () -> b.bindAddress(null)).getMessage());
    assertTrue(assertThrows(IllegalStateException.class, b::start).getMessage()
        .startsWith("nothing to serve"));
    b.health("a", () -> null).port(0);
    assertEquals("a health source named a was added before", assertThrows(
        IllegalArgumentException.class, () -> b.health("a", () -> null)).getMessage());
    assertThrows(IllegalStateException.class, () -> b.port(1), "set once");
    assertEquals(8081, ManagementServer.DEFAULT_PORT);
  }

  private static ManagementServer.Builder loopback() {
    return ManagementServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0);
  }

  private KubernetesController<ConfigMap> started(KubernetesController<ConfigMap> controller)
      throws Exception {
    closing.add(() -> controller.stop(Duration.ofSeconds(5)));
    controller.start();
    return controller;
  }

  private static Health health(boolean synced, Leadership leadership) {
    return new Health(synced, leadership, status(2, 2),
        List.of(new Watch("ConfigMap", Watch.State.WATCHING, Duration.ZERO, Optional.empty())),
        Optional.empty());
  }

  private static ControllerStatus status(int configured, int live) {
    return new ControllerStatus(true, configured, live, 0, 0, 0, Optional.empty());
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send("GET", path);
  }

  private HttpResponse<String> send(String method, String path)
      throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
        + path)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
