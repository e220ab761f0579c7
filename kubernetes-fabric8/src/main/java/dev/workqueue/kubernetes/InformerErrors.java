package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.client.WatcherException;

/**
 * An informer's exception handler that remembers the last failure fabric8 reported, for {@link
 * InformerHealth}: set on the informers a {@link KubernetesController} makes, and by an {@link
 * Operator} on its shared ones, whose reports read it through every controller that shares the
 * informer. A caller's own informer keeps the caller's handler: its failures are not known here.
 *
 * <p>Thread-safe: the informer's threads report, probes read and clear.
 */
final class InformerErrors {
  private volatile Throwable last; // since the watch was last seen open

  /**
   * fabric8's own rule, which is kept (retry once the informer has started, unless the watch
   * failed other than by a dropped connection: a response it could not read, say), and a record
   * of the failure. A failed initial list is not retried: the start fails at once, and the
   * controller with it.
   */
  boolean retryAfterException(boolean started, Throwable t) {
    last = t;
    return started && !(t instanceof WatcherException);
  }

  /** The last failure reported since the last {@link #clear}, or null. */
  Throwable last() {
    return last;
  }

  /** Forgets the failures: the watch is open again. */
  void clear() {
    last = null;
  }
}
