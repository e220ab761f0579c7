package dev.workqueue;

/**
 * The metrics hooks of a queue, called while the queue holds its lock, so implementations
 * need no synchronization of their own for state the hooks alone touch.
 */
interface QueueMetrics<T> {

  /**
   * {@code item} became dirty at {@code priority} (0 outside the priority queue); {@code depth}
   * is the new number of dirty items.
   */
  void added(T item, int depth, int priority);

  /** {@code item}, dirty at {@code priority}, was handed out by {@code get}; as above. */
  void taken(T item, int depth, int priority);

  /** A dirty item's priority rose from {@code from} to {@code to} (the priority queue only). */
  void raised(int from, int to);

  /** {@code item}, which was processing, is done. */
  void finished(T item);

  /** A delayed add was asked for. */
  void retried();

  /** The queue shut down: stop periodic work. */
  void stopped();

  @SuppressWarnings("unchecked")
  static <T> QueueMetrics<T> noop() {
    return (QueueMetrics<T>) Noop.INSTANCE;
  }

  /** Does nothing and reads no clock. */
  enum Noop implements QueueMetrics<Object> {
    INSTANCE;

    @Override
    public void added(Object item, int depth, int priority) {}

    @Override
    public void taken(Object item, int depth, int priority) {}

    @Override
    public void raised(int from, int to) {}

    @Override
    public void finished(Object item) {}

    @Override
    public void retried() {}

    @Override
    public void stopped() {}
  }
}
