package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leader's watch of its own Lease, for one leadership: the moment the Lease is deleted or
 * names another holder (or none), it reports the loss, without waiting for the next renewal.
 *
 * <p>An informer on that one Lease, on the replica's own client: it starts at once (it lists,
 * then watches, on fabric8's threads, so nothing of the elector waits for it), lists again after
 * a broken watch (a deletion missed meanwhile is still reported), and {@link #close} stops it
 * whether or not its watch was established yet. It is started after the take of the Lease, so
 * its first list shows that write or a later one: no event older than the leadership arrives.
 * Events of the leader's own renewals name it and are ignored. If the informer stops by itself
 * (it cannot list or watch Leases), {@link #isClosed} turns true and the elector starts another
 * after its next renewal; meanwhile the renewals alone see a loss, as they did before the watch.
 */
final class LeaseWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseWatch.class);

  private final SharedIndexInformer<Lease> informer;
  private volatile boolean closed;

  /**
   * Starts watching; returns at once.
   *
   * @param lost told why, on a client thread, when the Lease is deleted or held by another
   */
  LeaseWatch(KubernetesClient client, LeaderElection config, Consumer<String> lost) {
    String identity = config.identity();
    this.informer = client.leases().inNamespace(config.namespace()).withName(config.name())
        .runnableInformer(0);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Lease lease) {
        report(lossIn(lease, identity), lost);
      }

      @Override
      public void onUpdate(Lease old, Lease lease) {
        report(lossIn(lease, identity), lost);
      }

      @Override
      public void onDelete(Lease lease, boolean finalStateUnknown) {
        report("the Lease was deleted", lost);
      }
    });
    informer.stopped().whenComplete((done, failure) -> closed = true);
    informer.start().whenComplete((synced, failure) -> {
      if (failure != null) {
        closed = true;
        log.debug("lease {}/{}: the watch of the Lease did not start; renewals still see a loss",
            config.namespace(), config.name(), failure);
      } else if (informer.getStore().getByKey(config.namespace() + "/" + config.name())
          == null) {
        report("the Lease was deleted", lost); // between the take and the first list
      }
    });
  }

  private void report(String why, Consumer<String> lost) {
    if (why != null && !closed) {
      lost.accept(why);
    }
  }

  /** Why this state of the Lease ends the leadership of {@code identity}, or null. */
  static String lossIn(Lease lease, String identity) {
    String holder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    if (identity.equals(holder)) {
      return null;
    }
    return holder == null || holder.isEmpty() ? "the Lease was emptied by another writer"
        : "the Lease was taken by " + holder;
  }

  /** Whether it stopped: closed, or it could not start. */
  boolean isClosed() {
    return closed;
  }

  @Override
  public void close() {
    closed = true;
    informer.close();
  }
}
