package dev.workqueue.kubernetes;

import dev.workqueue.clock.Clock;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What one informer's watch is doing, for {@link Health.Watch}: read from the informer ({@code
 * stopped()}, {@code hasSynced()}, {@code isWatching()}) and from its exception handler's record
 * ({@link InformerErrors}). fabric8 calls no one when a watch drops, so the outage is timed from
 * the first report that finds the watch not open.
 *
 * <p>Thread-safe: probes call {@link #report}.
 */
final class InformerHealth {
  private final String type;
  private final SharedIndexInformer<?> informer;
  private final Clock clock;
  private final InformerErrors errors; // reported by fabric8 since the watch was last open
  private boolean down; // guarded by this: a report found the watch not open
  private long downSince; // guarded by this: when, on the clock

  InformerHealth(String type, SharedIndexInformer<?> informer, InformerErrors errors,
      Clock clock) {
    this.type = type;
    this.informer = informer;
    this.errors = errors;
    this.clock = clock;
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
      return report(Health.Watch.State.SYNCING, Duration.ZERO, errors.last());
    }
    if (watching()) {
      down = false;
      errors.clear();
      return report(Health.Watch.State.WATCHING, Duration.ZERO, null);
    }
    long now = clock.nanoTime();
    if (!down) {
      down = true;
      downSince = now;
    }
    Duration off = Duration.ofNanos(now - downSince); // overflow-safe: a difference of times
    return report(off.compareTo(Health.RECONNECT_GRACE) < 0 ? Health.Watch.State.RECONNECTING
        : Health.Watch.State.DOWN, off, errors.last());
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
