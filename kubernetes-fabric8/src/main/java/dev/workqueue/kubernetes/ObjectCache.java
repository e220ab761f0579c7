package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Read access to an informer's cache by {@link ObjectKey}: what the controller last heard from
 * the API server, without a request to it. The objects are the cache's own: do not modify them.
 *
 * @param <R> the object type
 */
public final class ObjectCache<R extends HasMetadata> {
  private final SharedIndexInformer<R> informer;

  ObjectCache(SharedIndexInformer<R> informer) {
    this.informer = informer;
  }

  /**
   * The cached object of {@code key}.
   *
   * @param key the object's key
   * @return the object, or empty if the cache has none
   */
  public Optional<R> get(ObjectKey key) {
    Objects.requireNonNull(key, "key must not be null");
    // The informer's store keys objects as namespace/name, or name if cluster-scoped: as
    // ObjectKey.toString.
    return Optional.ofNullable(informer.getStore().getByKey(key.toString()));
  }

  /**
   * Every cached object.
   *
   * @return a new list, in no particular order
   */
  public List<R> list() {
    return informer.getStore().list();
  }

  /**
   * Whether the cache has received the initial list.
   *
   * @return true once synced
   */
  public boolean hasSynced() {
    return informer.hasSynced();
  }

  /** The informer whose cache this is (for tests). */
  SharedIndexInformer<R> informer() {
    return informer;
  }
}
