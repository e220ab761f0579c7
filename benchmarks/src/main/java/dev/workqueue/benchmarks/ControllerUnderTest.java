package dev.workqueue.benchmarks;

/**
 * One shape for the reconcile loops {@link ControllerBenchmark} compares: a running controller
 * (or thread pool) that reconciles each key it is given once, with a no-op reconciler that only
 * tells the benchmark ({@link ControllerContender#start}'s {@code reconciled}).
 */
@SuppressWarnings("try") // close may be interrupted: a benchmark's tear-down, never a caller's
interface ControllerUnderTest extends AutoCloseable {
  /**
   * Enqueues keys {@code from} (inclusive) to {@code to} (exclusive) of the contender's
   * pre-built key set, each once, in order, on the calling thread: the informer's event
   * handler's part.
   */
  void enqueue(int from, int to);

  /** Stops the workers and every thread the contender started; throws if they did not stop. */
  @Override
  void close() throws Exception;
}
