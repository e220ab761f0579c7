package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers of an {@link Operator}: one per watched type and namespace, given to every
 * controller that watches that type (as {@link KubernetesControllerBuilder#withInformer}), so
 * the API server sees one list and one watch per type, as with controller-runtime's cache.
 * The first controller to start an informer starts it; the others add their handlers and wait
 * for the same sync. The operator stops them all after its controllers. Not thread-safe: the
 * operator's builder fills it, its stop closes it.
 */
final class SharedInformers {
  private static final Logger log = LoggerFactory.getLogger(SharedInformers.class);

  private record Scope(Class<?> type, String namespace) {}

  private final KubernetesClient client;
  private final Map<Scope, SharedIndexInformer<?>> informers = new LinkedHashMap<>();
  /** Each informer's exception handler, which every controller sharing it reports from. */
  private final Map<Scope, InformerErrors> errors = new LinkedHashMap<>();

  SharedInformers(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Gives {@code b} the shared informer of each type it reconciles, owns or watches, in its
   * namespace (every namespace for a cluster-scoped type), except those it was given already.
   */
  void share(KubernetesControllerBuilder<?> b) {
    for (Watches.Source<?> s : b.allSources()) {
      if (!b.informers.containsKey(s.type())) {
        give(b, s.type());
      }
    }
  }

  private <X extends HasMetadata> void give(KubernetesControllerBuilder<?> b, Class<X> type) {
    Scope scope = new Scope(type, Namespaced.class.isAssignableFrom(type) ? b.namespace : null);
    b.withInformer(type, informer(type, scope));
    b.informerErrors.put(type, errors.get(scope));
  }

  @SuppressWarnings("unchecked")
  private <X extends HasMetadata> SharedIndexInformer<X> informer(Class<X> type, Scope scope) {
    return (SharedIndexInformer<X>) informers.computeIfAbsent(scope, s -> {
      SharedIndexInformer<X> i = s.namespace() == null
          ? client.resources(type).inAnyNamespace().runnableInformer(0)
          : client.resources(type).inNamespace(s.namespace()).runnableInformer(0);
      // fabric8's rule, as the controllers' own informers have, and the record every
      // controller's health report reads (a handler of the controller's own could not be set:
      // an informer has one, and this one is shared)
      InformerErrors recorder = new InformerErrors();
      i.exceptionHandler(recorder::retryAfterException);
      errors.put(s, recorder);
      return i;
    });
  }

  /** How many informers there are: one per (type, namespace). */
  int size() {
    return informers.size();
  }

  /** Stops every informer. */
  void close() {
    List<SharedIndexInformer<?>> all = new ArrayList<>(informers.values());
    for (SharedIndexInformer<?> i : all) {
      try {
        i.close();
      } catch (RuntimeException e) {
        log.warn("an informer of the operator failed to stop", e);
      }
    }
  }
}
