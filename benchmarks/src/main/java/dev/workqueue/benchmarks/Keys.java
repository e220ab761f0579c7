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

  /**
   * {@code size} distinct keys (a power of two) whose hashes are spread, distinct from every
   * other ring's: {@link #ring}'s values times an odd constant (a bijection on {@code int}).
   * Sequential {@code Integer}s hash to themselves, so a hash table that indexes by the low bits
   * ({@code HashMap}, {@code ConcurrentHashMap}) puts consecutive keys in consecutive buckets,
   * sixteen to a cache line: a locality that real keys (a Kubernetes object's
   * "namespace/name") do not have, and that changes how often a line crosses between cores.
   */
  static Integer[] spreadRing(int size) {
    Integer[] keys = ring(size);
    for (int i = 0; i < size; i++) {
      keys[i] = Integer.valueOf(keys[i] * 0x9E3779B9);
    }
    return keys;
  }
}
