package dev.workqueue;

import java.util.ArrayDeque;

/** The default storage: an array ring buffer, which clears each slot as it is popped. */
final class FifoStorage<T> implements QueueStorage<T> {
  private final ArrayDeque<T> items = new ArrayDeque<>();

  @Override
  public void touch(T item) {}

  @Override
  public void push(T item) {
    items.addLast(item);
  }

  @Override
  public T pop() {
    return items.pollFirst();
  }

  @Override
  public int size() {
    return items.size();
  }
}
