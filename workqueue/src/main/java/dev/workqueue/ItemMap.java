package dev.workqueue;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link Entry} per item that is dirty or processing: client-go's two sets in one map, so
 * {@code add}, {@code get} and {@code done} each cost one map operation. Read and written with
 * or without the queue's lock.
 *
 * <p>The JDK's {@link ConcurrentHashMap}: a bin of items that share one hash becomes a tree when
 * they are {@code Comparable}, so keys made to collide (names of {@code "c0"} and {@code "an"}
 * blocks, which anyone who may create objects can make) cost O(log n) per operation, not O(n).
 *
 * <p>An entry leaves the map only retired ({@link Entry#isRetired}); a retired entry still in the
 * map counts as absent and an insert replaces it. The item's {@code hashCode}, {@code equals}
 * or {@code compareTo} may throw from any call, the map's growth may fail: an insert that threw
 * may have taken its entry in, and {@link #dropAfterFailedInsert} takes it out again.
 */
final class ItemMap<T> {
  private final ConcurrentHashMap<T, Entry<T>> map = new ConcurrentHashMap<>();

  /** The item's entry, live or retired, or null. */
  Entry<T> get(T item) {
    return map.get(item);
  }

  /**
   * Puts {@code fresh} in the map unless {@code item} has a live entry there, which it returns
   * (null if {@code fresh} went in). A retired entry still in the map is replaced.
   */
  Entry<T> insert(T item, Entry<T> fresh) {
    Entry<T> e;
    while ((e = map.putIfAbsent(item, fresh)) != null && e.isRetired()) {
      if (map.replace(item, e, fresh)) {
        return null;
      }
    }
    return e;
  }

  /** Takes a retired entry out, unless another already replaced it. */
  void remove(Entry<T> e) {
    map.remove(e.item, e);
  }

  /**
   * An entry that never reached the line (the intake was closed, or the insert failed) leaves
   * the map, retired, so an add waiting for its publication ({@link Entry#awaitPublished}) goes
   * on.
   */
  void dropUnoffered(Entry<T> fresh) {
    fresh.retireUnoffered();
    remove(fresh);
  }

  /**
   * After {@link #insert} threw: the item's {@code equals} (nothing has changed then), or the map
   * failing after it took {@code fresh} in (the item's {@code compareTo} while a bin becomes a
   * tree, an {@code OutOfMemoryError} while the table grows), where an entry left unpublished
   * would make every later add of the item wait for it forever. So the entry is dropped; a
   * second throw of the item's {@code equals} is added to {@code cause}.
   */
  void dropAfterFailedInsert(Entry<T> fresh, Throwable cause) {
    try {
      dropUnoffered(fresh);
    } catch (RuntimeException | Error again) {
      cause.addSuppressed(again);
    }
  }

  /**
   * Whether no item is dirty or processing; for a draining shutdown. The map's count can read
   * low for good: an insert that threw after the map took the entry in (above) was never counted
   * in, yet its removal counted it out. So a count of 0 is confirmed by a look at the table (a
   * scan of its empty bins, only when the count says empty).
   */
  boolean isEmpty() {
    return map.isEmpty() && !map.values().iterator().hasNext();
  }

  /** For invariant checks, under the lock. */
  Collection<Entry<T>> entries() {
    return map.values();
  }
}
