package dev.workqueue;

import dev.workqueue.internal.SlotIndex;
import java.util.Arrays;

/**
 * The deferred adds of a {@link DelayHeap}, in call order: each was later than the heap's head
 * when it was made, so it cannot change the head, and the heap applies them in one batch before
 * any method that could see the difference. On a large heap a batch first reads the index slots
 * of all its items ({@link #readAhead}), so that their cache misses overlap instead of being
 * paid one after the other behind the queue's lock. Not thread-safe.
 */
final class DeferredAdds {
  /** Adds kept before they are applied in one batch. */
  static final int CAPACITY = 64;

  private final Object[] items = new Object[CAPACITY];
  private final long[] at = new long[CAPACITY];
  private final int[] payloads = new int[CAPACITY];
  private final int[] hashes = new int[CAPACITY];
  private int count;
  private int sink; // keeps the batch's table reads from being optimised away

  int count() {
    return count;
  }

  boolean isFull() {
    return count == CAPACITY;
  }

  /** Keeps an add; only when not {@link #isFull}. */
  void add(Object item, long readyAt, int payload, int hash) {
    items[count] = item;
    at[count] = readyAt;
    payloads[count] = payload;
    hashes[count] = hash;
    count++;
  }

  /** Reads the home slot of every kept add in {@code index}: independent reads that overlap. */
  void readAhead(SlotIndex index) {
    int touch = 0;
    for (int i = 0; i < count; i++) {
      touch += index.touch(hashes[i]);
    }
    sink += touch;
  }

  /** Forgets the kept adds (their items too); returns how many there were. */
  int take() {
    int n = count;
    count = 0;
    return n;
  }

  /** The item of add {@code i} of the batch just taken; lets go of it. */
  Object item(int i) {
    Object item = items[i];
    items[i] = null;
    return item;
  }

  long readyAt(int i) {
    return at[i];
  }

  int payload(int i) {
    return payloads[i];
  }

  int hash(int i) {
    return hashes[i];
  }

  /** Drops the kept adds without applying them. */
  void clear() {
    Arrays.fill(items, 0, count, null);
    count = 0;
  }
}
