package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.Objects;

/**
 * Owner references for the objects a reconciler creates, as controller-runtime's {@code
 * controllerutil.SetControllerReference}. A controller built with {@code owns(Type.class)}
 * (or an {@link EnqueueHandler#forOwner} handler) maps an owned object back to its owner by
 * the owner reference marked {@code controller: true}; the garbage collector deletes the owned
 * object with its owner.
 *
 * <pre>{@code
 * ConfigMap source = request.object().get();     // the owner, as read from the API server
 * Secret copy = new SecretBuilder()
 *     .withNewMetadata().withNamespace(source.getMetadata().getNamespace()).withName("copy")
 *         .withOwnerReferences(OwnerReferences.controllerOf(source)).endMetadata()
 *     .build();
 * }</pre>
 *
 * <p>The API server refuses an owner reference across namespaces: a namespaced owner owns
 * objects of its own namespace only (a cluster-scoped owner may own objects anywhere).
 */
public final class OwnerReferences {
  private OwnerReferences() {}

  /**
   * The controller owner reference to {@code owner}: its apiVersion, kind, name and uid, with
   * {@code controller} and {@code blockOwnerDeletion} true. An object has at most one
   * controller reference; put this one on the objects the owner's reconciler creates.
   *
   * @param owner the owning object as read from the API server (a cached or created object:
   *     only those have a uid)
   * @return a new owner reference
   * @throws NullPointerException if {@code owner} is null
   * @throws IllegalArgumentException if {@code owner} has no apiVersion, kind, name or uid
   *     (the message says which)
   */
  public static OwnerReference controllerOf(HasMetadata owner) {
    Objects.requireNonNull(owner, "owner must not be null");
    ObjectMeta meta = owner.getMetadata();
    String what = owner.getClass().getSimpleName()
        + (meta == null || meta.getName() == null ? "" : " " + meta.getName());
    require(owner.getKind(), "a kind", what);
    require(owner.getApiVersion(), "an apiVersion", what);
    if (meta == null) {
      throw new IllegalArgumentException("owner must have metadata: " + what);
    }
    require(meta.getName(), "a name", what);
    require(meta.getUid(), "a uid (the API server sets it: use the owner as read from the"
        + " API server, a cached or created object, not one built here)", what);
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(meta.getName())
        .withUid(meta.getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  private static void require(String value, String what, String owner) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("owner must have " + what + ": " + owner);
    }
  }
}
