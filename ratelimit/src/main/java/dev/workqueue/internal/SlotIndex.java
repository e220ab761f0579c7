package dev.workqueue.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Internal, not an API (exported only to the toolkit's own modules): the index of an indexed
 * heap, from item to heap position. {@code DelayHeap} and {@code KeyedHeap} keep their items,
 * hashes and <em>links</em> by heap position; this class maps an item to its position, and a
 * heap move tells it the new position through the item's link, without a lookup. Not
 * thread-safe.
 *
 * <p><b>The guarantee it follows</b> is the JDK's for {@link HashMap} and
 * {@code ConcurrentHashMap}: when many keys share one hash and are {@link Comparable} (of one
 * class), an operation costs O(log n) calls of {@code equals} and {@code compareTo}, not O(n);
 * keys that are not Comparable stay correct, only slower. Shared hashes are easy to make:
 * {@code "c0"} and {@code "an"} hash alike, so all 2^k strings of k such blocks share a hash.
 *
 * <p><b>Design.</b> The common case must stay what the heaps were tuned for: an
 * open-addressing table of {@code int}s, probed linearly, at most half full; each entry holds
 * heap position + 1 in its low {@code posBits} bits (0 = empty) and a fingerprint of the hash
 * above, so a probe dereferences an item only when a fingerprint matches, and an absent item
 * costs one random memory access. A link is the entry's slot with the fingerprint above it,
 * so a move rewrites the entry without reading it. Such a table alone is quadratic under
 * attack: keys with one hash share one probe run, every probe of the run calls
 * {@code equals} (their fingerprints match), and every deletion shifts the run. Two changes
 * bound that without touching the common path:
 * <ul>
 *   <li><b>A bounded probe.</b> An item is placed at most {@link #PROBE_LIMIT} slots from its
 *       home, and lookups stop there. An item that finds no free slot within the bound goes to
 *       an <em>overflow</em>: a {@link HashMap} keyed by a small wrapper holding the item and its
 *       stored hash, whose {@code compareTo} is the item's. The map turns a bin of one hash into
 *       a red-black tree when the items are Comparable, which gives the O(log n) above; its
 *       entries get dense ids, and their heap positions sit in an {@code int} array by id, so a
 *       move of an overflowed item is one array write too (its link is the id with the sign
 *       bit set). An item is never in both. Lookups ask the map only when it holds an item
 *       whose hash has the same top bits, a check of an array of counts (at least 8 per
 *       overflowed item). A table at most half full overflows naturally too (about 0.06% of
 *       its items with a bound of 16), and then nearly every absent item would ask the map;
 *       with the counts only about one in eight does.</li>
 *   <li><b>A seeded hash.</b> The home slot comes from the item's hash mixed with a
 *       per-instance random seed (Murmur3's finalizer), so distinct hashes crafted to share
 *       home slots in one process do not in another. The seed is not a keyed cryptographic
 *       hash; the bound is what guarantees the cost, the seed only keeps runs short.</li>
 * </ul>
 * Deletion shifts the rest of a probe run back (no tombstones); nothing moves farther from its
 * home, so the bound holds. A rebuild (grow or shrink) re-places the table's items, and an
 * item that no longer fits within the bound goes to the overflow; overflowed items stay there
 * until removed.
 *
 * <p><b>User code.</b> Items' hashes are taken once ({@link #hash}) and kept by the owner:
 * deletions and rebuilds never call {@code hashCode}. {@code equals} runs in lookups, and the
 * overflow calls {@code equals} and {@code compareTo} when an item enters it or leaves it; what
 * they throw reaches only the caller of {@link #find} or {@link #add}, before anything changed.
 * A rebuild and a removal know their answer (the item is absent, or is that very key), so they
 * let the map search on past what an item throws ({@link OverflowKey}): they never throw, and
 * the index stays whole. What an item's {@code compareTo} throws counts as "no order". A
 * {@code compareTo} inconsistent with {@code equals} can hide an overflowed item from a lookup,
 * as it can in a {@code HashMap}; a removal that the map cannot find builds the map again
 * without it, so no dead key is left behind.
 */
public final class SlotIndex {
  /** Positions are below this: position + 1 and a fingerprint bit fit in an entry. */
  public static final int MAX_POSITIONS = 1 << 28;
  /** The most slots an item sits from its home, and a lookup in the table probes. */
  public static final int PROBE_LIMIT = 16;
  private static final int MAX_LENGTH = 1 << 29;
  private static final int OVERFLOW = Integer.MIN_VALUE;

  /**
   * What the index needs of its heap, by position: the item, its hash ({@link #hash}, taken
   * when it came in) and its link (last given by the index); {@code relink} gives the item at
   * {@code pos} a new link, to keep and pass to {@link #move}.
   */
  public interface Owner {
    Object itemAt(int pos);

    int hashAt(int pos);

    int linkAt(int pos);

    void relink(int pos, int link);
  }

  private final Owner owner;
  private final int minLength;
  private final int seed = ThreadLocalRandom.current().nextInt();

  private int[] table; // fingerprint << posBits | (position + 1); 0 = empty
  private int mask;
  private int posBits;
  private int shift; // 32 - posBits: a home slot is the top posBits bits of the hash

  private HashMap<OverflowKey, OverflowKey> overflow; // null while nothing overflowed
  private OverflowKey[] byId;
  private int[] positionById;
  /** OverflowKey items by the top bits of their hash: at least 8 counts per item. */
  private int[] countByTop;
  private int topShift; // a count's index is hash >>> topShift
  private int overflowed;
  private OverflowKey probe;

  /**
   * An empty index.
   *
   * @param owner the heap whose positions it indexes
   * @param minLength the table's least length, a power of two, at least 2 * {@link #PROBE_LIMIT}
   */
  public SlotIndex(Owner owner, int minLength) {
    this.owner = owner;
    this.minLength = minLength;
    newTable(minLength);
  }

  /** The hash an item is indexed by; the owner keeps it by position. Calls its hashCode. */
  public int hash(Object item) {
    int h = item.hashCode() ^ seed;
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    h ^= h >>> 13;
    h *= 0xC2B2AE35;
    h ^= h >>> 16;
    return h;
  }

  /** The position of {@code item} (its hash is {@code hash}), or -1. */
  public int find(Object item, int hash) {
    int[] t = table;
    int m = mask;
    int fingerprint = fingerprint(hash);
    int s = hash >>> shift;
    for (int i = 0; i < PROBE_LIMIT; i++, s = (s + 1) & m) {
      int e = t[s];
      if (e == 0) {
        break;
      }
      if ((e & ~m) == fingerprint) {
        int pos = (e & m) - 1;
        Object other = owner.itemAt(pos);
        if (other == item || item.equals(other)) {
          return pos;
        }
      }
    }
    if (overflowed == 0 || countByTop[hash >>> topShift] == 0) {
      return -1;
    }
    return findOverflowKey(item, hash);
  }

  /**
   * Enters an absent item at {@code pos} and returns its link. Call {@link #ensureRoom} first.
   * If it throws (the overflow's {@code equals} or {@code compareTo}), nothing changed.
   */
  public int add(Object item, int hash, int pos) {
    return place(item, hash, pos, false);
  }

  /** {@link #add}; {@code known} for an item known to be absent (a rebuild's): never throws. */
  private int place(Object item, int hash, int pos, boolean known) {
    int[] t = table;
    int s = hash >>> shift;
    for (int i = 0; i < PROBE_LIMIT; i++, s = (s + 1) & mask) {
      if (t[s] == 0) {
        int link = fingerprint(hash) | s;
        t[s] = entry(link, pos);
        return link;
      }
    }
    return addOverflowKey(item, hash, pos, known);
  }

  /** Records that the item with {@code link} is now at {@code pos}; reads nothing. */
  public void move(int link, int pos) {
    if (link >= 0) {
      table[link & mask] = entry(link, pos);
    } else {
      positionById[link & ~OVERFLOW] = pos;
    }
  }

  /** Removes the item with {@code link}; other items' links may change (through the owner). */
  public void remove(int link) {
    if (link >= 0) {
      deleteSlot(link & mask);
    } else {
      removeOverflowKey(link & ~OVERFLOW);
    }
  }

  /** Makes room for {@code count} items, rebuilding once if needed; {@code size} are held. */
  public void ensureRoom(int count, int size) {
    int length = table.length;
    while (count > length >>> 1) {
      if (length == MAX_LENGTH) {
        throw new IllegalStateException("an index holds at most " + MAX_POSITIONS + " items");
      }
      length <<= 1;
    }
    if (length != table.length) {
      rebuild(length, size);
    }
  }

  /** With {@code size} items held, shrinks the table in one step if it is under 1/8 full. */
  public void shrinkIfSparse(int size) {
    if (table.length > minLength && size < table.length >>> 3) {
      rebuild(Math.max(minLength, Integer.highestOneBit(Math.max(1, size)) << 2), size);
    }
  }

  /** Forgets every item. */
  public void clear() {
    newTable(minLength);
    clearOverflow();
  }

  /** The table's length (it grows and shrinks with the items). */
  public int length() {
    return table.length;
  }

  /** Reads the home slot of {@code hash}: a batch reads ahead so that its misses overlap. */
  public int touch(int hash) {
    return table[hash >>> shift];
  }

  /** For tests: how many items are in the overflow. */
  public int overflowed() {
    return overflowed;
  }

  // ---- the table ----

  private int fingerprint(int hash) {
    return (hash << posBits) & ~OVERFLOW;
  }

  private int entry(int link, int pos) {
    return (link & ~mask) | (pos + 1);
  }

  private void newTable(int length) {
    table = new int[length];
    mask = length - 1;
    posBits = Integer.numberOfTrailingZeros(length);
    shift = 32 - posBits;
  }

  /** Re-enters the table's items (not the overflowed ones) of positions below {@code size}. */
  private void rebuild(int length, int size) {
    newTable(length);
    Owner o = owner;
    for (int pos = 0; pos < size; pos++) {
      if (o.linkAt(pos) >= 0) {
        o.relink(pos, place(o.itemAt(pos), o.hashAt(pos), pos, true));
      }
    }
  }

  /** Empties {@code slot} and shifts later entries of its probe run back (no tombstones). */
  private void deleteSlot(int slot) {
    int[] t = table;
    int m = mask;
    int hole = slot;
    t[hole] = 0;
    for (int s = (hole + 1) & m; t[s] != 0; s = (s + 1) & m) {
      int pos = (t[s] & m) - 1;
      int home = owner.hashAt(pos) >>> shift;
      // The entry at s may fill the hole unless its home lies cyclically in (hole, s].
      if (((s - home) & m) >= ((s - hole) & m)) {
        t[hole] = t[s];
        owner.relink(pos, (t[s] & ~m) | hole);
        t[s] = 0;
        hole = s;
      }
    }
  }

  // ---- the overflow ----

  private int findOverflowKey(Object item, int hash) {
    OverflowKey p = probe;
    p.item = item;
    p.hash = hash;
    try {
      OverflowKey w = overflow.get(p);
      return w == null ? -1 : positionById[w.id];
    } finally {
      p.item = null;
    }
  }

  private int addOverflowKey(Object item, int hash, int pos, boolean known) {
    if (overflow == null) {
      overflow = new HashMap<>();
      byId = new OverflowKey[16];
      positionById = new int[16];
      countByTop = new int[256];
      topShift = 24;
      probe = new OverflowKey();
    } else if (overflowed == byId.length) {
      byId = Arrays.copyOf(byId, 2 * overflowed);
      positionById = Arrays.copyOf(positionById, 2 * overflowed);
    }
    if (8 * (overflowed + 1) > countByTop.length && topShift > 8) {
      recount(topShift - 1);
    }
    OverflowKey w = new OverflowKey();
    w.item = item;
    w.hash = hash;
    w.id = overflowed;
    w.quiet = known;
    overflow.put(w, w); // may throw (unless known): nothing changed yet
    w.quiet = false;
    byId[w.id] = w;
    positionById[w.id] = pos;
    countByTop[hash >>> topShift]++;
    return OVERFLOW | overflowed++;
  }

  /** Counts the overflowed items again, by the top {@code 32 - shift} bits of their hash. */
  private void recount(int shift) {
    topShift = shift;
    countByTop = new int[1 << (32 - shift)];
    for (int id = 0; id < overflowed; id++) {
      countByTop[byId[id].hash >>> shift]++;
    }
  }

  private void removeOverflowKey(int id) {
    OverflowKey w = byId[id];
    w.quiet = true; // found by identity whatever its item's equals does
    if (overflow.remove(w) == null) { // a compareTo that changed its answer hid it from the map
      remapOverflowWithout(w);
    }
    countByTop[w.hash >>> topShift]--;
    int last = --overflowed;
    if (id != last) { // the last id takes the freed one: ids stay dense
      OverflowKey moved = byId[last];
      moved.id = id;
      byId[id] = moved;
      positionById[id] = positionById[last];
      owner.relink(positionById[id], OVERFLOW | id);
    }
    byId[last] = null;
    if (overflowed == 0) {
      clearOverflow();
    }
  }

  /** Builds the overflow map again from the live keys but {@code gone}: O(overflowed), rare. */
  private void remapOverflowWithout(OverflowKey gone) {
    overflow = new HashMap<>();
    for (int i = 0; i < overflowed; i++) {
      OverflowKey w = byId[i];
      if (w != gone) {
        w.quiet = true; // absent from the new map
        overflow.put(w, w);
        w.quiet = false;
      }
    }
  }

  private void clearOverflow() {
    overflowed = 0;
    overflow = null;
    byId = null;
    positionById = null;
    countByTop = null;
    probe = null;
  }

  /**
   * For tests: with {@code size} items held, every table entry and overflowed item leads to a
   * position whose link leads back, sits within the bound of its home with no gap before it,
   * and has the hash the owner keeps; the table is at most half full.
   */
  public boolean check(int size) {
    int held = 0;
    for (int s = 0; s < table.length; s++) {
      int e = table[s];
      if (e != 0) {
        held++;
        int pos = (e & mask) - 1;
        int link = owner.linkAt(pos);
        int home = owner.hashAt(pos) >>> shift;
        if (pos >= size || link != ((e & ~mask) | s) || ((s - home) & mask) >= PROBE_LIMIT
            || (e & ~mask) != fingerprint(owner.hashAt(pos)) || !reachable(home, s)) {
          return false;
        }
      }
    }
    for (int id = 0; id < overflowed; id++) {
      OverflowKey w = byId[id];
      int pos = positionById[id];
      if (w.id != id || pos >= size || owner.linkAt(pos) != (OVERFLOW | id)
          || owner.itemAt(pos) != w.item || owner.hashAt(pos) != w.hash) {
        return false;
      }
    }
    return held + overflowed == size && 2 * held <= table.length
        && (overflow == null ? overflowed == 0 : overflow.size() == overflowed);
  }

  private boolean reachable(int home, int slot) {
    for (int s = home; s != slot; s = (s + 1) & mask) {
      if (table[s] == 0) {
        return false;
      }
    }
    return true;
  }
}
