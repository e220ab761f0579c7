package dev.workqueue;

import java.time.Duration;
import java.util.Optional;

/**
 * A work queue with client-go's guarantees: an item waiting in the queue is there once however
 * often it is added, and an item is never handed to two consumers at once.
 *
 * <p>The queue keeps a FIFO of queued items, a <em>dirty</em> set (everything that needs
 * processing) and a <em>processing</em> set (handed out by {@link #get}, not yet {@link #done}).
 * Every queued item is dirty and not processing.
 *
 * <ul>
 *   <li>{@link #add} of an item that is already dirty changes nothing. An item added while it
 *       is processing is not queued at once: it goes to the tail of the FIFO at {@code done},
 *       so any number of adds during processing cause exactly one more round.
 *   <li>Consumers loop {@code get} → work → {@code done}. <b>Every {@code get} must be paired
 *       with a {@code done}</b>, in a {@code finally} block, or the item is never handed out
 *       again.
 * </ul>
 *
 * <pre>{@code
 * WorkQueue<String> queue = WorkQueue.create();
 * queue.add("default/my-object");
 * while (true) {
 *   Optional<String> next = queue.get();     // blocks; empty once shut down and drained
 *   if (next.isEmpty()) return;
 *   String key = next.get();
 *   try {
 *     reconcile(key);
 *   } finally {
 *     queue.done(key);
 *   }
 * }
 * }</pre>
 *
 * <p>Thread-safe: any number of producers and consumers. Items are compared with
 * {@code equals}/{@code hashCode}; records make good keys. Null items are rejected.
 *
 * @param <T> the item type
 */
public interface WorkQueue<T> {

  /**
   * A queue with the default settings: first-in first-out, the system clock, no metrics.
   *
   * @param <T> the item type
   * @return a new, empty queue
   */
  static <T> WorkQueue<T> create() {
    return new WorkQueueBuilder<T>().build();
  }

  /**
   * A builder for a queue with a name (for metrics), a clock, a metrics provider, an order.
   *
   * @param <T> the item type of the queues it builds
   * @return a new builder with every setting at its default
   */
  static <T> WorkQueueBuilder<T> builder() {
    return new WorkQueueBuilder<>();
  }

  /**
   * Marks {@code item} as needing processing. If it is already dirty nothing changes; if it is
   * processing it is queued again at its {@link #done}; otherwise it goes to the tail of the
   * FIFO and one waiting consumer is woken. Ignored after shutdown. Never blocks for long.
   *
   * <p><b>Memory consistency:</b> actions in a thread before {@code add(x)} happen-before the
   * actions of the consumer after the {@code get} (or {@code poll}) that hands out the round
   * of {@code x} covering this add, also when the add is merged into a round already pending
   * (as {@link java.util.concurrent.BlockingQueue} promises for {@code put} and {@code take}).
   *
   * @param item the item to process, compared with {@code equals}/{@code hashCode}
   * @throws NullPointerException if {@code item} is null
   */
  void add(T item);

  /**
   * Takes the item at the head, blocking while the queue is empty and not shut down. After
   * {@link #shutDown} it still returns the items left in the queue; once none is left it
   * returns empty at once, every time.
   *
   * @return the item, which the caller must pass to {@link #done}; empty only when the queue
   *     is shut down and has nothing left to hand out
   * @throws InterruptedException if the thread is interrupted while waiting (nothing is taken)
   */
  Optional<T> get() throws InterruptedException;

  /**
   * Like {@link #get}, but waits at most {@code timeout} (on the queue's clock).
   * {@code poll(Duration.ZERO)} never waits.
   *
   * @param timeout the longest wait; zero or negative does not wait, only takes a ready item
   * @return the item, or empty if none came within the timeout or the queue is shut down and
   *     empty ({@link #pollResult} tells which, free of races)
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws NullPointerException if {@code timeout} is null
   */
  Optional<T> poll(Duration timeout) throws InterruptedException;

  /**
   * Like {@link #poll}, but says why no item came: the timeout passed, or the queue is shut
   * down and has nothing left to hand out. Decided when the call returns, so unlike asking
   * {@link #isShuttingDown} afterwards it cannot mistake a timeout for the end of the queue.
   *
   * @param timeout the longest wait; zero or negative does not wait, only takes a ready item
   * @return the item, or which of timeout and shutdown ended the call; never null
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws NullPointerException if {@code timeout} is null
   */
  PollResult<T> pollResult(Duration timeout) throws InterruptedException;

  /**
   * Marks {@code item} as no longer processing. If it was added while processing it goes to
   * the tail of the FIFO now (also after shutdown: it is still handed out). A {@code done} for
   * an item that is not processing is ignored (logged once per queue at warn): it never
   * queues a duplicate.
   *
   * @param item the item, as handed out by {@code get} or {@code poll}
   * @throws NullPointerException if {@code item} is null
   */
  void done(T item);

  /**
   * The number of items queued: not those processing, not those waiting for a delay.
   * Informational: it may be stale by the time the caller looks at it.
   *
   * @return how many items are queued now; in a {@link DelayingQueue}, items whose delay has
   *     passed count as queued
   */
  int size();

  /**
   * Stops the queue: later adds are ignored, waiting consumers are woken, a blocked
   * {@link #shutDownWithDrain} returns. Returns at once, without waiting for processing
   * items. Idempotent.
   */
  void shutDown();

  /**
   * Shuts down like {@link #shutDown}, then waits until the work is finished: nothing left in
   * the queue and nothing processing (consumers keep calling {@code get} and {@code done}
   * meanwhile). A concurrent {@link #shutDown} ends the wait early.
   *
   * @throws InterruptedException if interrupted while waiting; the queue stays shut down
   */
  void shutDownWithDrain() throws InterruptedException;

  /**
   * Like {@link #shutDownWithDrain()}, waiting at most {@code timeout} (on the queue's clock).
   *
   * @param timeout the longest wait for the drain; zero or negative only shuts down and checks
   * @return true if the queue drained; false if the timeout passed or a {@link #shutDown}
   *     ended the wait first
   * @throws InterruptedException if interrupted while waiting; the queue stays shut down
   * @throws NullPointerException if {@code timeout} is null
   */
  boolean shutDownWithDrain(Duration timeout) throws InterruptedException;

  /**
   * Whether {@link #shutDown} or {@link #shutDownWithDrain} has been called.
   *
   * @return true once the queue is shut down, for good: a queue never starts again
   */
  boolean isShuttingDown();
}
