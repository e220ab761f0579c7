package dev.workqueue.kubernetes;

import dev.workqueue.controller.Result;
import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * The reconciler of a {@link KubernetesController}: brings the world in line with the object
 * named by the request's key. Outcomes as for {@link dev.workqueue.controller.Reconciler}:
 * return a {@link Result}, or throw to retry with back-off.
 *
 * @param <R> the type of the reconciled objects
 */
@FunctionalInterface
public interface ObjectReconciler<R extends HasMetadata> {

  /**
   * Reconciles one object.
   *
   * @param request the key, and the object as the cache holds it now (empty once deleted)
   * @return what to do with the key next; null counts as success
   * @throws Exception to retry with back-off
   */
  Result reconcile(Request<R> request) throws Exception;
}
