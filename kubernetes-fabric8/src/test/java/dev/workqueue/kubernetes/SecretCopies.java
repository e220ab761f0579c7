package dev.workqueue.kubernetes;

import dev.workqueue.controller.Result;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The controller the tests run: for each ConfigMap it keeps a Secret of the same name whose
 * {@code value} is the ConfigMap's, owned by the ConfigMap (controller reference). A shared
 * {@link Checker} sees every reconcile of every replica.
 */
final class SecretCopies {
  static final String NS = "copies";

  private SecretCopies() {}

  /** Sees the reconciles of all replicas: two replicas must never reconcile at once. */
  static final class Checker {
    private final Map<String, AtomicInteger> active = new ConcurrentHashMap<>();
    final List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
    final Map<String, AtomicInteger> reconciles = new ConcurrentHashMap<>();

    void enter(String replica, ObjectKey key) {
      active.computeIfAbsent(replica, r -> new AtomicInteger()).incrementAndGet();
      reconciles.computeIfAbsent(replica, r -> new AtomicInteger()).incrementAndGet();
      active.forEach((other, n) -> {
        if (!other.equals(replica) && n.get() > 0) {
          violations.add(replica + " reconciled " + key + " while " + other + " was reconciling");
        }
      });
    }

    void exit(String replica) {
      active.get(replica).decrementAndGet();
    }
  }

  /** The reconciler of {@code replica}, writing through {@code client}. */
  static ObjectReconciler<ConfigMap> reconciler(String replica, KubernetesClient client,
      Checker checker) {
    return request -> {
      checker.enter(replica, request.key());
      try {
        if (request.object().isEmpty()) {
          return Result.success(); // deleted: the garbage collector takes the copy
        }
        ConfigMap cm = request.object().get();
        Secret copy = new SecretBuilder().withNewMetadata().withName(cm.getMetadata().getName())
            .withNamespace(NS).addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap")
            .withName(cm.getMetadata().getName()).withUid(cm.getMetadata().getUid())
            .withController(true).endOwnerReference().endMetadata()
            .withData(Map.of("value", encode(value(cm)))).build();
        client.secrets().inNamespace(NS).resource(copy).createOr(NonDeletingOperation::update);
        return Result.success();
      } finally {
        checker.exit(replica);
      }
    };
  }

  static ConfigMap source(String name, String value) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(NS)
        .endMetadata().withData(Map.of("value", value)).build();
  }

  static String value(ConfigMap cm) {
    return cm.getData() == null ? "" : cm.getData().getOrDefault("value", "");
  }

  /** The ConfigMaps whose copy is missing or stale, as {@code client} reads them now. */
  static List<String> unconverged(KubernetesClient client) {
    List<String> stale = new ArrayList<>();
    for (ConfigMap cm : client.configMaps().inNamespace(NS).list().getItems()) {
      Secret s = client.secrets().inNamespace(NS).withName(cm.getMetadata().getName()).get();
      if (s == null || !encode(value(cm)).equals(s.getData().get("value"))) {
        stale.add(cm.getMetadata().getName());
      }
    }
    return stale;
  }

  static String encode(String v) {
    return Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8));
  }
}
