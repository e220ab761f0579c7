package dev.workqueue.benchmarks;

/**
 * One shape for every queue a benchmark drives, so a scenario is written once and run against
 * each {@link Contender}. Every benchmark fork runs one contender, so the interface call is
 * monomorphic there and costs nothing measurable.
 *
 * <p>For plain queues (ArrayBlockingQueue, LinkedBlockingQueue) {@code done} does nothing.
 *
 * @param <T> the item type
 */
public interface QueueUnderTest<T> {

  /** Adds (or, for a plain blocking queue, puts) {@code item}. */
  void add(T item) throws InterruptedException;

  /** Blocks until an item can be handed out, and hands it out. */
  T take() throws InterruptedException;

  /**
   * Hands out an item if one is queued, else returns null at once. Used where a benchmark
   * thread must not block: after JMH has stopped measuring, so that iterations always end.
   */
  T tryTake();

  /** Marks a taken item as processed. */
  void done(T item);

  /** Stops whatever the queue runs (threads of a delaying queue); called at tear-down. */
  default void close() {}
}
