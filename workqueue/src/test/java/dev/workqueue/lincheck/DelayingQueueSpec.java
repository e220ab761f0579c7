package dev.workqueue.lincheck;

import java.util.HashSet;
import java.util.Set;

/**
 * The sequential specification for {@link DelayingQueueLincheckTest}: a {@link WorkQueueModel}
 * plus the set of keys waiting for a delay. The clock never moves during a scenario, so a key
 * added after a positive delay only ever waits (which ready time it keeps does not matter), and
 * a plain {@code add} leaves a waiting key waiting (the builder's default, as in client-go).
 * {@code shutDown} discards the waiting keys; after it, every kind of add is ignored, while
 * {@code poll} still hands out what is queued and {@code done} still re-queues a key that was
 * added while processing.
 */
public class DelayingQueueSpec {
  private final WorkQueueModel queue = WorkQueueModel.fifo();
  private final Set<Integer> waiting = new HashSet<>();
  private boolean shutDown;

  public void add(int key) {
    if (!shutDown) {
      queue.add(key);
    }
  }

  public void addAfter(int key) {
    if (!shutDown) {
      waiting.add(key);
    }
  }

  public void reschedule(int key) {
    if (!shutDown) {
      waiting.add(key);
    }
  }

  public void addAfterZero(int key) {
    add(key);
  }

  public boolean cancel(int key) {
    return waiting.remove(key);
  }

  public Integer poll() {
    return queue.poll();
  }

  public void done(int key) {
    queue.done(key);
  }

  public int size() {
    return queue.size();
  }

  public int waitingCount() {
    return waiting.size();
  }

  public void shutDown() {
    shutDown = true;
    waiting.clear();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DelayingQueueSpec s
        && shutDown == s.shutDown && queue.equals(s.queue) && waiting.equals(s.waiting);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * queue.hashCode() + waiting.hashCode()) + Boolean.hashCode(shutDown);
  }
}
