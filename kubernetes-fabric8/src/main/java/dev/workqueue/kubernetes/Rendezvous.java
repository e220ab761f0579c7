package dev.workqueue.kubernetes;

import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * Rendezvous (highest-random-weight) hashing: a key belongs to the member whose weight for it
 * is highest. A member joining takes about 1/n of the keys, from every other member alike; a
 * member leaving gives its keys to the others alike; no other key moves. The weights depend
 * only on the two strings, so every replica computes the same owner from the same members.
 */
final class Rendezvous {
  private Rendezvous() {}

  /**
   * The owner of {@code key} among {@code members}.
   *
   * @return the member of highest weight for {@code key}, or null if there are no members
   */
  static String owner(String key, Collection<String> members) {
    long k = hash(key);
    String best = null;
    long bestWeight = 0;
    for (String m : members) {
      long w = weight(memberHash(m), k);
      if (best == null || Long.compareUnsigned(w, bestWeight) > 0
          || (w == bestWeight && m.compareTo(best) < 0)) {
        best = m;
        bestWeight = w;
      }
    }
    return best;
  }

  /** Member names are few and asked for often: their hashes are kept (a bounded number). */
  private static final java.util.Map<String, Long> MEMBER_HASHES =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static long memberHash(String member) {
    Long h = MEMBER_HASHES.get(member);
    if (h == null) {
      h = hash(member);
      if (MEMBER_HASHES.size() < 10_000) {
        MEMBER_HASHES.put(member, h);
      }
    }
    return h;
  }

  /** The weight of a member (by its hash) for a key (by its hash). */
  static long weight(long memberHash, long keyHash) {
    return mix(memberHash ^ mix(keyHash));
  }

  /** FNV-1a over the UTF-8 bytes, then mixed: stable across JVMs and runs. */
  static long hash(String s) {
    long h = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return mix(h);
  }

  /** A 64-bit finaliser (splitmix64's): every input bit moves every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
