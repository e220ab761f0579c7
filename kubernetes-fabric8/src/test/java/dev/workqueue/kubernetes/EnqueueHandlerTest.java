package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.WorkQueue;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The handlers on real informers of a mock API server (CRUD mode): what each event enqueues.
 * "Nothing else was enqueued" is checked by a sentinel object created last: informer events of
 * one informer arrive in order, so once its key is out, every earlier event has been handled.
 */
@Timeout(60)
class EnqueueHandlerTest {
  private static final String NS = "team-a";

  private final MockApiServer server = new MockApiServer();
  private final KubernetesClient client = server.newClient();
  private final WorkQueue<ObjectKey> queue = WorkQueue.create();
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    informers.forEach(SharedIndexInformer::close);
    queue.shutDown();
    server.close();
  }

  @Test
  void forObject_enqueuesTheObjectOnAddUpdateAndDelete() throws Exception {
    informers.add(client.configMaps().inNamespace(NS).inform(EnqueueHandler.forObject(queue::add)));

    client.configMaps().inNamespace(NS).resource(configMap("app", Map.of("k", "1"))).create();
    assertEquals(ObjectKey.of(NS, "app"), next());

    client.configMaps().inNamespace(NS).withName("app")
        .edit(cm -> new ConfigMapBuilder(cm).withData(Map.of("k", "2")).build());
    assertEquals(ObjectKey.of(NS, "app"), next());

    client.configMaps().inNamespace(NS).withName("app").delete();
    assertEquals(ObjectKey.of(NS, "app"), next());
  }

  @Test
  void forOwner_enqueuesTheControllerOfTheOwnerType_only() throws Exception {
    informers.add(client.configMaps().inNamespace(NS)
        .inform(EnqueueHandler.forOwner(Deployment.class, queue::add)));

    create("owned", owner("apps/v1", "Deployment", "web", true));
    assertEquals(ObjectKey.of(NS, "web"), next(), "the controller owner's key, in the namespace");

    create("not-controller", owner("apps/v1", "Deployment", "other", false));
    create("other-kind", owner("apps/v1", "StatefulSet", "db", true));
    create("other-group", owner("example.com/v1", "Deployment", "fake", true));
    create("no-owner");
    create("sentinel", owner("apps/v1beta2", "Deployment", "last", true)); // any version
    assertEquals(ObjectKey.of(NS, "last"), next(), "nothing between: the others map to no key");
  }

  @Test
  void forOwner_ofAClusterScopedOwner_hasNoNamespace() throws Exception {
    EnqueueHandler<ConfigMap> h = EnqueueHandler.forOwner(Namespace.class, queue::add);
    h.onAdd(configMap("x", Map.of(), owner("v1", "Namespace", "team-a", true)));
    assertEquals(Optional.of(ObjectKey.cluster("team-a")), queue.poll(Duration.ZERO));
  }

  @Test
  void anUpdateThatMovesTheOwner_enqueuesBothOwners() throws Exception {
    EnqueueHandler<ConfigMap> h = EnqueueHandler.forOwner(Deployment.class, queue::add);
    h.onUpdate(configMap("x", Map.of(), owner("apps/v1", "Deployment", "old", true)),
        configMap("x", Map.of(), owner("apps/v1", "Deployment", "new", true)));
    assertEquals(Optional.of(ObjectKey.of(NS, "old")), queue.poll(Duration.ZERO));
    assertEquals(Optional.of(ObjectKey.of(NS, "new")), queue.poll(Duration.ZERO));
  }

  @Test
  void mapped_enqueuesWhatTheMapperGives() throws Exception {
    // A Secret is read by the ConfigMaps named in its "used-by" annotation.
    informers.add(client.secrets().inNamespace(NS).inform(EnqueueHandler.<Secret>mapped(
        s -> List.of(s.getMetadata().getAnnotations().get("used-by").split(",")).stream()
            .map(n -> ObjectKey.of(NS, n)).toList(),
        queue::add)));

    client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata()
        .withName("creds").withNamespace(NS).addToAnnotations("used-by", "a,b").endMetadata()
        .build()).create();
    assertEquals(ObjectKey.of(NS, "a"), next());
    assertEquals(ObjectKey.of(NS, "b"), next());
  }

  @Test
  void aMapperThatThrows_costsThatEventOnly_andIsCounted() throws Exception {
    EnqueueHandler<ConfigMap> h = EnqueueHandler.<ConfigMap>mapped(cm -> {
      if (cm.getMetadata().getName().startsWith("bad")) {
        throw new IllegalStateException("mapper bug");
      }
      return List.of(ObjectKey.of(cm));
    }, queue::add);
    informers.add(client.configMaps().inNamespace(NS).inform(h));

    create("bad-1");
    create("good");
    assertEquals(ObjectKey.of(NS, "good"), next(), "the informer goes on after the throw");
    assertEquals(1, h.failures());
  }

  /**
   * An update maps the old object and the new one apart: a mapper that cannot map one of them
   * (the old object predates a label the mapper now needs, say) costs that side's keys only, and
   * the other side's keys are still enqueued.
   */
  @Test
  void anUpdateWithOneSideTheMapperCannotMap_stillEnqueuesTheOtherSidesKeys() {
    List<ObjectKey> got = new ArrayList<>();
    EnqueueHandler<ConfigMap> h = EnqueueHandler.<ConfigMap>mapped(cm -> {
      String target = cm.getMetadata().getLabels().get("target");
      if (target == null) {
        throw new IllegalStateException("no target label");
      }
      return List.of(ObjectKey.of(NS, target));
    }, got::add);

    h.onUpdate(labelled("x", Map.of()), labelled("x", Map.of("target", "new-owner")));
    assertEquals(List.of(ObjectKey.of(NS, "new-owner")), got, "the old object threw");
    assertEquals(1, h.failures());

    got.clear();
    h.onUpdate(labelled("x", Map.of("target", "old-owner")), labelled("x", Map.of()));
    assertEquals(List.of(ObjectKey.of(NS, "old-owner")), got, "the new object threw");
    assertEquals(2, h.failures());

    got.clear();
    h.onUpdate(labelled("x", Map.of()), labelled("x", Map.of()));
    assertEquals(List.of(), got);
    assertEquals(3, h.failures(), "one failure per event, though both sides threw");
  }

  @Test
  void aSinkThatThrows_isCounted_andTheHandlerDoesNotThrow() {
    EnqueueHandler<ConfigMap> h = EnqueueHandler.forObject(key -> {
      throw new IllegalStateException("queue refused");
    });
    h.onAdd(configMap("x", Map.of()));
    h.onDelete(configMap("x", Map.of()), true);
    assertEquals(2, h.failures());
  }

  @Test
  void aDeleteSeenOnlyByARelist_enqueuesTheLastKnownState() throws Exception {
    EnqueueHandler<ConfigMap> h = EnqueueHandler.forObject(queue::add);
    h.onDelete(configMap("gone", Map.of()), true);
    assertEquals(Optional.of(ObjectKey.of(NS, "gone")), queue.poll(Duration.ZERO));
  }

  @Test
  void resourceVersionChanged_dropsResyncs() {
    EnqueueHandler<ConfigMap> h = EnqueueHandler.<ConfigMap>forObject(queue::add)
        .withFilter(EventFilter.resourceVersionChanged());
    h.onUpdate(withVersion("x", "5"), withVersion("x", "5")); // a resync
    assertEquals(0, queue.size());
    h.onUpdate(withVersion("x", "5"), withVersion("x", "6"));
    assertEquals(1, queue.size());
  }

  @Test
  void filters_combine_andPassAddsAndDeletesByDefault() {
    EventFilter<ConfigMap> labels = EventFilter.labelsChanged();
    EventFilter<ConfigMap> team = EventFilter.matching(
        cm -> "a".equals(cm.getMetadata().getLabels().get("team")));
    ConfigMap teamA = labelled("x", Map.of("team", "a"));
    ConfigMap teamB = labelled("x", Map.of("team", "b"));
    ConfigMap teamAMore = labelled("x", Map.of("team", "a", "tier", "web"));

    assertTrue(labels.onAdd(teamA));
    assertTrue(labels.onDelete(teamA, false));
    assertFalse(labels.onUpdate(teamA, labelled("x", Map.of("team", "a"))));
    assertTrue(labels.onUpdate(teamA, teamAMore));

    EventFilter<ConfigMap> both = labels.and(team);
    assertTrue(both.onUpdate(teamA, teamAMore));
    assertFalse(both.onUpdate(teamAMore, teamB), "labels changed, but not team a any more");
    assertFalse(both.onAdd(teamB));
    assertTrue(labels.or(team).onUpdate(teamA, labelled("x", Map.of("team", "a"))));
  }

  @Test
  void generationChanged_passesSpecChangesOnly() {
    EventFilter<ConfigMap> f = EventFilter.generationChanged();
    ConfigMap g1 = configMap("x", Map.of());
    g1.getMetadata().setGeneration(1L);
    ConfigMap g1b = configMap("x", Map.of("status", "seen"));
    g1b.getMetadata().setGeneration(1L);
    ConfigMap g2 = configMap("x", Map.of());
    g2.getMetadata().setGeneration(2L);
    assertFalse(f.onUpdate(g1, g1b));
    assertTrue(f.onUpdate(g1, g2));
  }

  @Test
  void badArguments_areRefusedNamingTheArgument() {
    assertEquals("sink must not be null",
        assertThrows(NullPointerException.class, () -> EnqueueHandler.forObject(null))
            .getMessage());
    assertEquals("mapper must not be null", assertThrows(NullPointerException.class,
        () -> EnqueueHandler.mapped(null, queue::add)).getMessage());
    assertEquals("ownerType must not be null", assertThrows(NullPointerException.class,
        () -> EnqueueHandler.forOwner(null, queue::add)).getMessage());
    assertEquals("filter must not be null", assertThrows(NullPointerException.class,
        () -> EnqueueHandler.forObject(queue::add).withFilter(null)).getMessage());
  }

  // ---- helpers ----

  private ObjectKey next() throws InterruptedException {
    Optional<ObjectKey> key = queue.poll(Duration.ofSeconds(30));
    assertTrue(key.isPresent(), "a key within 30 s");
    queue.done(key.get());
    return key.get();
  }

  private void create(String name, OwnerReference... owners) {
    client.configMaps().inNamespace(NS).resource(configMap(name, Map.of(), owners)).create();
  }

  private static ConfigMap configMap(String name, Map<String, String> data,
      OwnerReference... owners) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(NS)
        .withOwnerReferences(owners).endMetadata().withData(data).build();
  }

  private static ConfigMap withVersion(String name, String resourceVersion) {
    ConfigMap cm = configMap(name, Map.of());
    cm.getMetadata().setResourceVersion(resourceVersion);
    return cm;
  }

  private static ConfigMap labelled(String name, Map<String, String> labels) {
    ConfigMap cm = configMap(name, Map.of());
    cm.getMetadata().setLabels(labels);
    return cm;
  }

  private static OwnerReference owner(String apiVersion, String kind, String name,
      boolean controller) {
    return new OwnerReferenceBuilder().withApiVersion(apiVersion).withKind(kind).withName(name)
        .withUid(name + "-uid").withController(controller).build();
  }
}
