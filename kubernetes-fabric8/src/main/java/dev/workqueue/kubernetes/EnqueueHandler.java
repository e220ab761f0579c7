package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An informer event handler that turns events into {@link ObjectKey}s and gives them to a sink,
 * usually a queue's or a controller's {@code add}: register it with {@code
 * informer.addEventHandler(handler)}. Three mappings, as controller-runtime's {@code For},
 * {@code Owns} and {@code Watches}:
 *
 * <ul>
 *   <li>{@link #forObject}: the object's own key;
 *   <li>{@link #forOwner}: the key of the object's controller, from its owner reference of
 *       controller-runtime's {@code OnlyControllerOwner} kind: the one marked {@code
 *       controller: true}, if it is of the owner type;
 *   <li>{@link #mapped}: the keys a function of the caller's gives.
 * </ul>
 *
 * An update enqueues the keys of both the old and the new object (an owner reference may have
 * moved), each once. A deletion enqueues the last state's keys, also when the informer learnt
 * of it from a re-list ({@code finalStateUnknown}): the reconciler then finds the object gone.
 * {@link #withFilter} drops events first.
 *
 * <p>The handler runs on the informer's thread (and, in a {@link KubernetesController}, on the
 * election's thread when a gain of leadership replays the cache, and on the clock's for a
 * resync), so filters, mappers and sinks must be thread-safe. It never throws: a filter, mapper
 * or sink that throws costs that event's keys only (on an update, a mapper that throws on one of
 * the two objects costs that object's keys only); it is logged and counted in {@link
 * #failures()}. Thread-safe and immutable; {@link #withFilter} returns a new handler.
 *
 * @param <R> the type of the objects the informer watches
 */
public final class EnqueueHandler<R extends HasMetadata> implements ResourceEventHandler<R> {
  private static final Logger log = LoggerFactory.getLogger(EnqueueHandler.class);

  private final Function<? super R, ? extends Collection<ObjectKey>> keys;
  private final Consumer<? super ObjectKey> sink;
  private final EventFilter<? super R> filter;
  private final AtomicLong failures;
  /** Null unless traced. */
  private final EventTracing tracing;

  private EnqueueHandler(Function<? super R, ? extends Collection<ObjectKey>> keys,
      Consumer<? super ObjectKey> sink, EventFilter<? super R> filter, AtomicLong failures,
      EventTracing tracing) {
    this.keys = keys;
    this.sink = sink;
    this.filter = filter;
    this.failures = failures;
    this.tracing = tracing;
  }

  /**
   * Enqueues the key of the object the event is about.
   *
   * @param <R> the object type
   * @param sink where the keys go, such as {@code controller::add}
   * @return the handler
   */
  public static <R extends HasMetadata> EnqueueHandler<R> forObject(
      Consumer<? super ObjectKey> sink) {
    return create(object -> List.of(ObjectKey.of(object)), sink);
  }

  /**
   * Enqueues the key of the object's controller, if it is of type {@code ownerType}: the owner
   * reference marked {@code controller: true} whose kind and API group are the owner type's
   * (any version). The owner's key has the owned object's namespace, or none if the owner type
   * is cluster-scoped. Objects without such a reference enqueue nothing.
   *
   * @param <R> the type of the owned objects
   * @param ownerType the owner's class, such as {@code Deployment.class}
   * @param sink where the owners' keys go
   * @return the handler
   * @throws IllegalArgumentException if {@code ownerType} has no kind ({@code @Kind} or class
   *     name)
   */
  public static <R extends HasMetadata> EnqueueHandler<R> forOwner(
      Class<? extends HasMetadata> ownerType, Consumer<? super ObjectKey> sink) {
    Objects.requireNonNull(ownerType, "ownerType must not be null");
    String kind = HasMetadata.getKind(ownerType);
    if (kind == null || kind.isEmpty()) {
      throw new IllegalArgumentException("ownerType must have a kind: " + ownerType.getName());
    }
    String group = nullToEmpty(HasMetadata.getGroup(ownerType));
    boolean namespaced = Namespaced.class.isAssignableFrom(ownerType);
    return create(object -> ownerKey(object, kind, group, namespaced), sink);
  }

  /**
   * Enqueues the keys {@code mapper} gives for the object, as controller-runtime's {@code
   * EnqueueRequestsFromMapFunc}: for objects that relate to the reconciled ones other than by
   * ownership (a Secret that many Deployments mount, say).
   *
   * @param <R> the type of the watched objects
   * @param mapper the keys to reconcile when an object changes; may be empty, not null
   * @param sink where the keys go
   * @return the handler
   */
  public static <R extends HasMetadata> EnqueueHandler<R> mapped(
      Function<? super R, ? extends Collection<ObjectKey>> mapper,
      Consumer<? super ObjectKey> sink) {
    Objects.requireNonNull(mapper, "mapper must not be null");
    return create(mapper, sink);
  }

  private static <R extends HasMetadata> EnqueueHandler<R> create(
      Function<? super R, ? extends Collection<ObjectKey>> keys,
      Consumer<? super ObjectKey> sink) {
    Objects.requireNonNull(sink, "sink must not be null");
    return new EnqueueHandler<>(keys, sink, new EventFilter<R>() {}, new AtomicLong(), null);
  }

  /**
   * This handler, queueing each event's keys inside a span {@code tracer} opens for the event
   * (only for an event that queues a key), so that the adds carry it to the reconciles.
   *
   * @param tracer opens the event's span
   * @param traceparentAnnotation the annotation whose value, a W3C {@code traceparent}, is the
   *     span's remote parent (such as {@link EventTracer#TRACEPARENT_ANNOTATION}); null to read
   *     none
   * @return a new handler; it shares this one's filter and {@link #failures()} count
   * @throws NullPointerException if {@code tracer} is null
   * @throws IllegalArgumentException if {@code traceparentAnnotation} is empty
   */
  public EnqueueHandler<R> withTracer(EventTracer tracer, String traceparentAnnotation) {
    Objects.requireNonNull(tracer, "tracer must not be null");
    if (traceparentAnnotation != null && traceparentAnnotation.isEmpty()) {
      throw new IllegalArgumentException("traceparentAnnotation must not be empty");
    }
    return new EnqueueHandler<>(keys, sink, filter, failures,
        new EventTracing(tracer, traceparentAnnotation));
  }

  /**
   * This handler, dropping first the events {@code filter} does not pass. Filters combine: the
   * new handler passes an event only if this one's filter and {@code filter} both do.
   *
   * @param filter which events enqueue
   * @return a new handler; it shares this one's {@link #failures()} count
   */
  @SuppressWarnings("unchecked")
  public EnqueueHandler<R> withFilter(EventFilter<? super R> filter) {
    Objects.requireNonNull(filter, "filter must not be null");
    EventFilter<R> mine = (EventFilter<R>) this.filter;
    return new EnqueueHandler<>(keys, sink, mine.and(filter), failures, tracing);
  }

  /**
   * Events whose filter, key mapping or sink threw, since the handler was made.
   *
   * @return the count
   */
  public long failures() {
    return failures.get();
  }

  @Override
  public void onAdd(R object) {
    try {
      if (filter.onAdd(object)) {
        enqueue("add", object, keys.apply(object));
      }
    } catch (RuntimeException e) {
      failed("add", object, e);
    }
  }

  @Override
  public void onUpdate(R old, R now) {
    try {
      if (!filter.onUpdate(old, now)) {
        return;
      }
    } catch (RuntimeException e) {
      failed("update", now, e);
      return;
    }
    // The two sides are mapped apart: a mapper that cannot map one (an old object from before
    // a label it now needs, say) costs that side's keys only. One failure per event at most.
    Set<ObjectKey> both = new LinkedHashSet<>();
    RuntimeException failure = null;
    if (old != now) { // a resync hands the same object twice
      failure = mapInto(both, old);
    }
    RuntimeException nowFailure = mapInto(both, now);
    failure = failure == null ? nowFailure : failure;
    try {
      enqueue("update", now, both);
    } catch (RuntimeException e) {
      failure = failure == null ? e : failure;
    }
    if (failure != null) {
      failed("update", now, failure);
    }
  }

  /** Adds {@code object}'s keys to {@code into}; returns what the mapper threw, or null. */
  private RuntimeException mapInto(Set<ObjectKey> into, R object) {
    try {
      into.addAll(keys.apply(object));
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  @Override
  public void onDelete(R object, boolean finalStateUnknown) {
    try {
      if (filter.onDelete(object, finalStateUnknown)) {
        enqueue("delete", object, keys.apply(object));
      }
    } catch (RuntimeException e) {
      failed("delete", object, e);
    }
  }

  private void enqueue(String event, R object, Collection<ObjectKey> found) {
    if (tracing == null || found.isEmpty()) {
      enqueue(found);
    } else {
      tracing.around(event, object, () -> enqueue(found)); // a span per event that queues
    }
  }

  private void enqueue(Collection<ObjectKey> found) {
    for (ObjectKey key : found) {
      sink.accept(key);
    }
  }

  private void failed(String event, R object, RuntimeException e) {
    failures.incrementAndGet();
    log.error("an informer {} event of {} lost keys: its filter, key mapping or sink threw"
        + " (on an update, the keys of the side that did not throw were enqueued)", event,
        describe(object), e);
  }

  private static String describe(HasMetadata object) {
    if (object == null) {
      return "(null)";
    }
    ObjectMeta meta = object.getMetadata();
    return object.getKind() + " "
        + (meta == null ? "(no metadata)"
            : nullToEmpty(meta.getNamespace()) + "/" + meta.getName());
  }

  private static List<ObjectKey> ownerKey(HasMetadata object, String kind, String group,
      boolean namespaced) {
    ObjectMeta meta = object.getMetadata();
    if (meta == null || meta.getOwnerReferences() == null) {
      return List.of();
    }
    for (OwnerReference ref : meta.getOwnerReferences()) {
      if (Boolean.TRUE.equals(ref.getController()) && kind.equals(ref.getKind())
          && group.equals(groupOf(ref.getApiVersion()))) {
        return List.of(
            ObjectKey.fromApiServer(namespaced ? meta.getNamespace() : "", ref.getName()));
      }
    }
    return List.of();
  }

  /** The group of {@code group/version}; empty for the core group's {@code v1}. */
  private static String groupOf(String apiVersion) {
    if (apiVersion == null) {
      return "";
    }
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
