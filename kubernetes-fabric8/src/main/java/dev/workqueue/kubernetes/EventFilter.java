package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which informer events put keys on the queue, as controller-runtime's predicates: each method
 * answers whether an event passes; every method passes by default, so a filter overrides only
 * the events it cares about. Combine filters with {@link #and} and {@link #or}.
 *
 * <p>A filter runs on the informer's thread (and on others: see {@link EnqueueHandler}): keep it
 * cheap and thread-safe. One that throws drops that event
 * only (the handler logs it and counts it in {@link EnqueueHandler#failures()}).
 *
 * @param <R> the object type
 */
public interface EventFilter<R extends HasMetadata> {

  /**
   * Whether an object that appeared (created, or listed when the informer started) passes.
   *
   * @param object the new object
   * @return true to enqueue
   */
  default boolean onAdd(R object) {
    return true;
  }

  /**
   * Whether a change passes. A periodic resync of the informer delivers an update whose old and
   * new objects have the same resourceVersion.
   *
   * @param old the object before the change
   * @param now the object after it
   * @return true to enqueue
   */
  default boolean onUpdate(R old, R now) {
    return true;
  }

  /**
   * Whether a deletion passes.
   *
   * @param object the last state the informer saw
   * @param finalStateUnknown true if the watch missed the deletion and the informer learnt of
   *     it from a re-list, so {@code object} may be older than the deleted object
   * @return true to enqueue
   */
  default boolean onDelete(R object, boolean finalStateUnknown) {
    return true;
  }

  /**
   * Passes an event only if both filters pass it.
   *
   * @param other the second filter, asked only if this one passes
   * @return the conjunction
   */
  default EventFilter<R> and(EventFilter<? super R> other) {
    Objects.requireNonNull(other, "other must not be null");
    EventFilter<R> self = this;
    return new EventFilter<>() {
      @Override
      public boolean onAdd(R object) {
        return self.onAdd(object) && other.onAdd(object);
      }

      @Override
      public boolean onUpdate(R old, R now) {
        return self.onUpdate(old, now) && other.onUpdate(old, now);
      }

      @Override
      public boolean onDelete(R object, boolean finalStateUnknown) {
        return self.onDelete(object, finalStateUnknown)
            && other.onDelete(object, finalStateUnknown);
      }
    };
  }

  /**
   * Passes an event if either filter passes it.
   *
   * @param other the second filter, asked only if this one does not pass
   * @return the disjunction
   */
  default EventFilter<R> or(EventFilter<? super R> other) {
    Objects.requireNonNull(other, "other must not be null");
    EventFilter<R> self = this;
    return new EventFilter<>() {
      @Override
      public boolean onAdd(R object) {
        return self.onAdd(object) || other.onAdd(object);
      }

      @Override
      public boolean onUpdate(R old, R now) {
        return self.onUpdate(old, now) || other.onUpdate(old, now);
      }

      @Override
      public boolean onDelete(R object, boolean finalStateUnknown) {
        return self.onDelete(object, finalStateUnknown)
            || other.onDelete(object, finalStateUnknown);
      }
    };
  }

  /**
   * Passes every event whose object matches {@code test} (for an update, the new object), as
   * controller-runtime's {@code NewPredicateFuncs}.
   *
   * @param <R> the object type
   * @param test the condition on the object
   * @return the filter
   */
  static <R extends HasMetadata> EventFilter<R> matching(Predicate<? super R> test) {
    Objects.requireNonNull(test, "test must not be null");
    return new EventFilter<>() {
      @Override
      public boolean onAdd(R object) {
        return test.test(object);
      }

      @Override
      public boolean onUpdate(R old, R now) {
        return test.test(now);
      }

      @Override
      public boolean onDelete(R object, boolean finalStateUnknown) {
        return test.test(object);
      }
    };
  }

  /**
   * Passes an update only if the resourceVersion changed: drops the informer's periodic
   * resyncs. Adds and deletes pass.
   *
   * @param <R> the object type
   * @return the filter
   */
  static <R extends HasMetadata> EventFilter<R> resourceVersionChanged() {
    return updateChanged(ObjectMeta::getResourceVersion);
  }

  /**
   * Passes an update only if {@code metadata.generation} changed: the spec changed, not only the
   * status or the metadata. Objects whose API does not count generations (a ConfigMap) never
   * pass an update. Adds and deletes pass.
   *
   * @param <R> the object type
   * @return the filter
   */
  static <R extends HasMetadata> EventFilter<R> generationChanged() {
    return updateChanged(ObjectMeta::getGeneration);
  }

  /**
   * Passes an update only if the labels changed. Adds and deletes pass.
   *
   * @param <R> the object type
   * @return the filter
   */
  static <R extends HasMetadata> EventFilter<R> labelsChanged() {
    return updateChanged(ObjectMeta::getLabels);
  }

  /**
   * Passes an update only if the annotations changed. Adds and deletes pass.
   *
   * @param <R> the object type
   * @return the filter
   */
  static <R extends HasMetadata> EventFilter<R> annotationsChanged() {
    return updateChanged(ObjectMeta::getAnnotations);
  }

  /**
   * Passes an update only if {@code field} of the metadata differs between the old and the new
   * object (an absent map counts as empty). Adds and deletes pass.
   *
   * @param <R> the object type
   * @param field what to compare, such as {@code ObjectMeta::getFinalizers}
   * @return the filter
   */
  static <R extends HasMetadata> EventFilter<R> updateChanged(
      Function<? super ObjectMeta, ?> field) {
    Objects.requireNonNull(field, "field must not be null");
    return new EventFilter<>() {
      @Override
      public boolean onUpdate(R old, R now) {
        return !Objects.equals(read(old, field), read(now, field));
      }
    };
  }

  private static Object read(HasMetadata object, Function<? super ObjectMeta, ?> field) {
    ObjectMeta meta = object.getMetadata();
    Object value = meta == null ? null : field.apply(meta);
    return value instanceof java.util.Map<?, ?> m && m.isEmpty()
        || value instanceof java.util.Collection<?> c && c.isEmpty() ? null : value;
  }
}
