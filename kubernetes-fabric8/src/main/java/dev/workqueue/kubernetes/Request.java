package dev.workqueue.kubernetes;

import dev.workqueue.controller.ReconcileContext;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link ObjectReconciler} is asked to reconcile: a key, and the object the informer's
 * cache holds for it when the reconcile starts. The cache may be a moment behind the API
 * server; the object is absent once it is deleted (or not yet seen).
 *
 * @param <R> the object type
 * @param key the object's namespace and name
 * @param object the cached object, or empty
 * @param context the attempt, whether it is the last before the key is dropped, the priority
 */
public record Request<R extends HasMetadata>(ObjectKey key, Optional<R> object,
    ReconcileContext context) {

  /**
   * A request.
   *
   * @param key the object's namespace and name
   * @param object the cached object, or empty
   * @param context the reconcile's attempt and priority
   * @throws NullPointerException if an argument is null
   */
  public Request {
    Objects.requireNonNull(key, "key must not be null");
    Objects.requireNonNull(object, "object must not be null");
    Objects.requireNonNull(context, "context must not be null");
  }
}
