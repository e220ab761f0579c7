package dev.workqueue.benchmarks;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Pre-boxed distinct keys, so that no benchmark pays for boxing inside the measured code and
 * every contender hashes the same objects. Each {@link #ring} call hands out a block of values
 * no other call gets, so producers on different threads never share a key.
 */
final class Keys {
  private static final AtomicInteger NEXT_BASE = new AtomicInteger(1_000_000);

  private Keys() {}

  /** {@code size} distinct keys (a power of two), distinct from every other ring's. */
  static Integer[] ring(int size) {
    if (Integer.bitCount(size) != 1) {
      throw new IllegalArgumentException("size must be a power of two, was " + size);
    }
    int base = NEXT_BASE.getAndAdd(size);
    Integer[] keys = new Integer[size];
    for (int i = 0; i < size; i++) {
      keys[i] = Integer.valueOf(base + i); // above the Integer cache: distinct objects
    }
    return keys;
  }
}
