package dev.workqueue.scheduling;

/**
 * Decides whether an event may have made a rejected item schedulable (kube-scheduler's
 * {@code QueueingHintFn}). Called with the queue's main lock held, so it must be fast and must
 * not call back into the queue. A function that throws (an {@code Error} included, except a
 * {@code VirtualMachineError} other than {@code StackOverflowError}) counts as {@link
 * QueueingHint#QUEUE}: when in doubt, retry.
 *
 * @param <T> the item type
 */
@FunctionalInterface
public interface QueueingHintFunction<T> {
  /**
   * @param item the rejected item
   * @param oldObj the object before the change, or null (an add)
   * @param newObj the object after the change, or null (a delete)
   * @return {@link QueueingHint#QUEUE} to move the item, {@link QueueingHint#SKIP} to leave it;
   *     null counts as QUEUE
   * @throws Exception if the hint cannot decide; the queue logs it and counts it as QUEUE
   */
  QueueingHint hint(T item, Object oldObj, Object newObj) throws Exception;
}
