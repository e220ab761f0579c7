package dev.workqueue.kubernetes;

import dev.workqueue.clock.Clock;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What one informer's watch is doing, for {@link Health.Watch}: read from the informer ({@code
 * stopped()}, {@code hasSynced()}, {@code isWatching()}) and from the exception handler this
 * controller sets on the informers it makes. fabric8 calls no one when a watch drops, so the
 * outage is timed from the first report that finds the watch not open.
 *
 * <p>Thread-safe: the informer's threads call {@link #retryAfterException}, probes call {@link
 * #report}.
 */
final class InformerHealth {
  private final String type;
  private final SharedIndexInformer<?> informer;
  private final Clock clock;
  private volatile Throwable lastError; // reported by fabric8 since the watch was last open
  private boolean down; // guarded by this: a report found the watch not open
  private long downSince; // guarded by this: when, on the clock

  InformerHealth(String type, SharedIndexInformer<?> informer, Clock clock) {
    this.type = type;
    this.informer = informer;
    this.clock = clock;
  }

  /**
   * The informer's exception handler: fabric8's own rule, which is kept (retry once the informer
   * has started, unless the watch failed other than by a dropped connection: a response it could
   * not read, say), and a record of the failure for the report. A failed initial list is not
   * retried: the start fails at once, and the controller with it.
   */
  boolean retryAfterException(boolean started, Throwable t) {
    lastError = t;
    return started && !(t instanceof WatcherException);
  }

  /**
   * The watch's state now.
   *
   * @param closed whether this controller has stopped (its informers closed)
   */
  synchronized Health.Watch report(boolean closed) {
    CompletableFuture<Void> stopped = informer.stopped().toCompletableFuture();
    Throwable stoppedBy = cause(stopped);
    if (stoppedBy != null) {
      return report(Health.Watch.State.FAILED, Duration.ZERO, stoppedBy);
    }
    if (closed) {
      return report(Health.Watch.State.STOPPED, Duration.ZERO, null);
    }
    if (stopped.isDone()) { // a caller's informer, stopped by its owner
      return new Health.Watch(type, Health.Watch.State.FAILED, Duration.ZERO,
          Optional.of("the informer was stopped, not by this controller"));
    }
    if (!informer.hasSynced()) {
      return report(Health.Watch.State.SYNCING, Duration.ZERO, lastError);
    }
    if (watching()) {
      down = false;
      lastError = null;
      return report(Health.Watch.State.WATCHING, Duration.ZERO, null);
    }
    long now = clock.nanoTime();
    if (!down) {
      down = true;
      downSince = now;
    }
    Duration off = Duration.ofNanos(now - downSince); // overflow-safe: a difference of times
    return report(off.compareTo(Health.RECONNECT_GRACE) < 0 ? Health.Watch.State.RECONNECTING
        : Health.Watch.State.DOWN, off, lastError);
  }

  private boolean watching() {
    try {
      return informer.isWatching();
    } catch (RuntimeException e) { // fabric8 7.8's isWatching can throw while the informer stops
      return false;
    }
  }

  private Health.Watch report(Health.Watch.State state, Duration off, Throwable error) {
    return new Health.Watch(type, state, off, Optional.ofNullable(error).map(String::valueOf));
  }

  /** The exception {@code future} completed with, or null if it did not (yet). */
  private static Throwable cause(CompletableFuture<?> future) {
    if (!future.isCompletedExceptionally()) {
      return null;
    }
    return future.handle((v, t) -> t).getNow(null);
  }
}
