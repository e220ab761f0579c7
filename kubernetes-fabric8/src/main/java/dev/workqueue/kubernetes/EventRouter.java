package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.Objects;

/**
 * The handler a {@link Watches} registers on an informer: it sends each notification to the
 * handler of real changes, or to the one that queues at the replay priority when it is no
 * change, as controller-runtime's handlers tell the initial list and resyncs apart:
 *
 * <ul>
 *   <li>an add before the informer's first list has been delivered, which fabric8 announces
 *       with {@code onList} after the list's adds (its start future and {@code hasSynced} may
 *       come before them: they do not tell), or before {@link #listed} (an informer the caller
 *       gave, already synced, hands a new handler its cache as adds while it registers it): the
 *       initial list;
 *   <li>an update whose old and new objects have the same resourceVersion: the informer's own
 *       periodic resync;
 *   <li>everything else (adds after the list, real updates, deletes): a change.
 * </ul>
 *
 * A misjudged notification costs order only, never a key: both handlers queue it.
 */
final class EventRouter<X extends HasMetadata> implements ResourceEventHandler<X> {
  private final EnqueueHandler<X> changes;
  private final EnqueueHandler<X> noChange;
  private volatile boolean listed;

  EventRouter(EnqueueHandler<X> changes, EnqueueHandler<X> noChange) {
    this.changes = changes;
    this.noChange = noChange;
  }

  /** The informer's initial list has been delivered: adds from now on are changes. */
  void listed() {
    listed = true;
  }

  @Override
  public void onList(String resourceVersion, boolean complete) {
    listed = true;
  }

  @Override
  public void onAdd(X object) {
    (listed ? changes : noChange).onAdd(object);
  }

  @Override
  public void onUpdate(X old, X now) {
    (sameVersion(old, now) ? noChange : changes).onUpdate(old, now);
  }

  @Override
  public void onDelete(X object, boolean finalStateUnknown) {
    changes.onDelete(object, finalStateUnknown);
  }

  private static boolean sameVersion(HasMetadata old, HasMetadata now) {
    if (old == now) {
      return true;
    }
    if (old == null || now == null || old.getMetadata() == null || now.getMetadata() == null) {
      return false;
    }
    String version = now.getMetadata().getResourceVersion();
    return version != null && Objects.equals(old.getMetadata().getResourceVersion(), version);
  }
}
