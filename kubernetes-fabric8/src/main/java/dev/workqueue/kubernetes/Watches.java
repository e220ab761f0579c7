package dev.workqueue.kubernetes;

import dev.workqueue.clock.Clock;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Informable;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers of one {@link KubernetesController}, one per watched type, each with the handler
 * that turns its events into keys: started in the order of the sources (the reconciled type
 * first), replayed on a gain of leadership, closed on stop. An informer the caller gave is
 * shared: it gets this controller's handler and loses it on close, and the caller stops it.
 * Each source has two handlers, alike but for where their keys go: one for real changes, one
 * for what is no change (the initial list, resyncs, replays), which an {@link EventRouter} and
 * the replay and resync here send to it.
 */
final class Watches {
  private static final Logger log = LoggerFactory.getLogger(Watches.class);

  /** A type to watch and the handler that maps its events to keys. */
  record Source<X extends HasMetadata>(Class<X> type,
      Function<Consumer<ObjectKey>, EnqueueHandler<X>> handler) {}

  /**
   * A started informer, the handler registered on it, the handler of what is no change,
   * whether this controller made the informer (and stops it), and what its watch does.
   */
  private record Watch<X extends HasMetadata>(Class<X> type, SharedIndexInformer<X> informer,
      EventRouter<X> handler, EnqueueHandler<X> noChange, boolean own, InformerHealth health) {
    void replay() {
      informer.getStore().list().forEach(noChange::onAdd);
    }

    void removeHandler() {
      informer.removeEventHandler(handler);
    }

    void resync() {
      for (X object : informer.getStore().list()) {
        noChange.onUpdate(object, object); // as an informer's resync: filters apply
      }
    }
  }

  private final KubernetesClient client;
  private final String controller;
  private final String namespace; // null: every namespace
  private final Map<Class<?>, SharedIndexInformer<?>> given; // the caller's informers, by type
  private final Map<Class<?>, InformerErrors> givenErrors; // an operator's handlers, by type
  private final Clock clock; // times a watch's outage
  private final List<Watch<?>> watches = new CopyOnWriteArrayList<>();
  private volatile String startFailure; // why the start failed; null if it did not
  /** Completed by a stop: a start waiting for the caches ends at once. */
  private final CompletableFuture<Void> cancelled = new CompletableFuture<>();
  private volatile boolean closed;

  Watches(KubernetesClient client, String controller, String namespace,
      Map<Class<?>, SharedIndexInformer<?>> given, Map<Class<?>, InformerErrors> givenErrors,
      Clock clock) {
    this.client = client;
    this.controller = controller;
    this.namespace = namespace;
    this.given = Map.copyOf(given);
    this.givenErrors = Map.copyOf(givenErrors);
    this.clock = clock;
  }

  /**
   * Starts an informer per source, runs {@code started} once every one has started (their caches
   * may still fill), and waits for their caches to sync. The keys of changes go to {@code
   * changes}; those of the initial lists, resyncs and replays to {@code noChange}. Why a start
   * failed stays for {@link #failure}: the controller cannot start again.
   *
   * @throws IllegalStateException if an informer failed to start, the caches did not sync
   *     within {@code timeout}, or {@link #cancelStart} was called
   */
  void startAll(List<Source<?>> sources, Consumer<ObjectKey> changes,
      Consumer<ObjectKey> noChange, Runnable started, Duration timeout)
      throws InterruptedException {
    List<CompletableFuture<Void>> synced = new ArrayList<>();
    try {
      for (Source<?> s : sources) {
        synced.add(start(s, changes, noChange));
      }
      started.run();
      CompletableFuture.anyOf(CompletableFuture.allOf(synced.toArray(CompletableFuture[]::new)),
          cancelled).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw failed(new IllegalStateException("controller " + controller + ": the caches did not"
          + " sync within " + timeout, e));
    } catch (ExecutionException e) {
      throw failed(new IllegalStateException("controller " + controller + ": an informer failed"
          + " to start: " + e.getCause(), e.getCause()));
    } catch (InterruptedException e) {
      startFailure = "controller " + controller + ": interrupted while its caches synced";
      throw e;
    } catch (RuntimeException e) {
      throw failed(e);
    }
    if (cancelled.isDone()) { // not a failure: the controller is live, and stopped
      throw new IllegalStateException("controller " + controller + ": stopped while its caches"
          + " synced");
    }
  }

  /**
   * Ends a {@link #startAll} waiting for the caches now, and any later one at once: for a stop
   * (a SIGTERM while the informers still list must not wait for the sync timeout).
   */
  void cancelStart() {
    cancelled.complete(null);
  }

  private RuntimeException failed(RuntimeException e) {
    startFailure = e.getMessage();
    return e;
  }

  /**
   * Starts the informer of {@code s} (or adds the handler to the caller's); completes when its
   * cache is synced.
   */
  @SuppressWarnings("unchecked")
  private <X extends HasMetadata> CompletableFuture<Void> start(Source<X> s,
      Consumer<ObjectKey> changes, Consumer<ObjectKey> noChange) {
    EnqueueHandler<X> quiet = s.handler().apply(noChange);
    EventRouter<X> handler = new EventRouter<>(s.handler().apply(changes), quiet);
    SharedIndexInformer<X> mine = (SharedIndexInformer<X>) given.get(s.type());
    if (mine != null) { // the caller's: it gets our handler, which it replays the cache to
      mine.addEventHandler(handler); // that replay runs in here: an initial list
      if (mine.hasSynced()) {
        handler.listed(); // else its onList comes
      }
      // an operator's informer: its handler records for us; a caller's keeps the caller's
      InformerErrors errors = givenErrors.getOrDefault(s.type(), new InformerErrors());
      watches.add(new Watch<>(s.type(), mine, handler, quiet, false,
          health(s.type(), mine, errors)));
      return mine.start().toCompletableFuture(); // a started informer returns its first start's
    }
    Informable<X> target = Namespaced.class.isAssignableFrom(s.type()) && namespace != null
        ? client.resources(s.type()).inNamespace(namespace)
        : client.resources(s.type()).inAnyNamespace();
    SharedIndexInformer<X> informer = target.runnableInformer(0);
    InformerErrors errors = new InformerErrors();
    informer.exceptionHandler(errors::retryAfterException);
    informer.addEventHandler(handler);
    watches.add(new Watch<>(s.type(), informer, handler, quiet, true,
        health(s.type(), informer, errors)));
    return informer.start().toCompletableFuture();
  }

  private InformerHealth health(Class<?> type, SharedIndexInformer<?> informer,
      InformerErrors errors) {
    return new InformerHealth(type.getSimpleName(), informer, errors, clock);
  }

  /** The informer of the reconciled type (the first source). */
  @SuppressWarnings("unchecked")
  <R extends HasMetadata> SharedIndexInformer<R> primary() {
    return (SharedIndexInformer<R>) watches.get(0).informer();
  }

  /** The informer of {@code type}, or null if no source watches it. */
  @SuppressWarnings("unchecked")
  <X extends HasMetadata> SharedIndexInformer<X> informer(Class<X> type) {
    for (Watch<?> w : watches) {
      if (w.type() == type) {
        return (SharedIndexInformer<X>) w.informer();
      }
    }
    return null;
  }

  /** Whether every informer started and has received its initial list. */
  boolean synced() {
    return !watches.isEmpty() && watches.stream().allMatch(w -> w.informer().hasSynced());
  }

  /** What each informer's watch does, the reconciled type's first; empty before the start. */
  List<Health.Watch> report() {
    boolean stopped = closed;
    return watches.stream().map(w -> w.health().report(stopped)).toList();
  }

  /**
   * Why the controller cannot recover, given {@code report}: its start failed, or an informer
   * stopped for good (not by this controller).
   */
  Optional<String> failure(List<Health.Watch> report) {
    String start = startFailure;
    if (start != null) {
      return Optional.of(start);
    }
    return report.stream().filter(w -> w.state() == Health.Watch.State.FAILED).findFirst()
        .map(w -> "controller " + controller + ": the informer of " + w.type()
            + " stopped for good: " + w.error().orElse("no reason given"));
  }

  /** Every cached object of every type through its handler, as an add. */
  void replay() {
    watches.forEach(Watch::replay);
  }

  /** Every cached object of the reconciled type through its handler, as an informer's resync. */
  void resyncPrimary() {
    watches.get(0).resync();
  }

  /** Stops the informers this controller made; takes the handler off the caller's. */
  void close() {
    closed = true;
    for (Watch<?> w : watches) {
      if (!w.own()) {
        w.removeHandler(); // the caller's: it stops it
        continue;
      }
      try {
        w.informer().close();
      } catch (RuntimeException e) {
        log.warn("controller {}: an informer failed to stop", controller, e);
      }
    }
  }
}
