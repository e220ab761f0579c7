package dev.workqueue.internal;

/**
 * Internal: an item in a {@link SlotIndex}'s overflow map, with the hash the index keeps for it
 * and its overflow id. Equal as the items are ({@code equals} of this key's item), with the
 * kept hash (so the map never calls the item's {@code hashCode}), and ordered by the items'
 * {@code compareTo} when they are Comparable and of one class: that is what lets the map keep
 * a bin of one hash as a tree with O(log n) lookups. Otherwise the order is 0 and the map
 * searches the bin with {@code equals}.
 *
 * <p>The map calls {@code compareTo} on keys other than the one it is given, while it turns a bin
 * into a tree or splits one in a resize; an exception there would leave the map half changed. So
 * what an item's {@code compareTo} throws counts as "no order" (0), and the map searches on with
 * {@code equals}: such items cost O(n) among their own hash, as items that are not Comparable
 * do, and nothing is lost. {@code equals} runs only on the key the map is given: for a lookup or
 * an add it throws to that caller before anything changed; a <em>quiet</em> key is one the index
 * knows the answer for (an item entering the overflow in a rebuild is absent from it, one leaving
 * it is this very key), and what its item's {@code equals} throws counts as "not equal", so a
 * rebuild or a removal, which may run for another caller's operation (a heap's poll), never
 * throws an item's exception halfway through.
 */
final class OverflowKey implements Comparable<OverflowKey> {
  Object item;
  int hash;
  int id;
  boolean quiet;

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    try {
      return o instanceof OverflowKey w && (w.item == item || item.equals(w.item));
    } catch (RuntimeException e) {
      if (quiet) {
        return false;
      }
      throw e;
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public int compareTo(OverflowKey w) {
    Object a = item;
    Object b = w.item;
    if (a == b || !(a instanceof Comparable) || a.getClass() != b.getClass()) {
      return 0; // the map then searches both sides, with equals
    }
    try {
      return ((Comparable<Object>) a).compareTo(b);
    } catch (RuntimeException e) {
      return 0; // see the class comment
    }
  }
}
