package dev.workqueue.kubernetes;

import dev.workqueue.clock.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica's side of the shard ring's hand-over protocol (README, "Sharded controllers").
 *
 * <p>Each member publishes a record: its <em>view</em> (the members it splits the keys among),
 * renewed every tick. Its <em>target</em> is the live members it sees now. The rules:
 *
 * <ol>
 *   <li>A member publishes its target as its view only once it has no reconcile in flight for
 *       a key the target gives to someone else (it stops starting such keys at once).
 *   <li>A member reconciles key K only if K is its own in its published view and in its target,
 *       its last read of the ring came after that view was stored, and no other live member's
 *       view gives K to that member.
 *   <li>A member that cannot renew for the renew deadline starts nothing; another member
 *       counts it out once its record has not changed for the lease duration on its own clock.
 * </ol>
 *
 * <p>Why two live members never reconcile K at once: each stored a view owning K before it
 * read the other's record, and holds that claim while it reconciles. Of two writes, one was
 * stored first; the other member's later read sees it and refrains. A claim is given up only
 * by storing a view without K, which rule 1 allows only after its reconciles of K ended. The
 * exception is rule 3, resting on the timing assumption leader election rests on: a member
 * that lost its record stops within the margin between renew deadline and lease duration, and
 * clocks run at about the same rate.
 *
 * <p>Thread-safe: {@link #tick} runs on one thread; workers call {@link #tryAcquire} and
 * {@link #release}. Store calls are made without the lock.
 */
final class ShardMember {
  private static final Logger log = LoggerFactory.getLogger(ShardMember.class);

  private final String id;
  private final ShardStore store;
  private final Clock clock;
  private final long leaseNanos;
  private final long renewDeadlineNanos;

  /** The other members' records as last read, and when each last changed (our clock). */
  private final Map<String, Seen> seen = new HashMap<>();
  private List<String> target = List.of();
  /** Our view as stored; null until stored. */
  private List<String> published;
  private String version;
  /** Whether the last read of the ring came after {@link #published} was stored. */
  private boolean confirmed;
  private long renewedAt;
  private boolean everRenewed;
  private boolean leaving;
  private boolean left;
  private final Map<String, Integer> inFlight = new HashMap<>();
  /**
   * Writes in doubt (the call failed without a conflict): each may still be stored later, if
   * the record is still at the version it expected. Locked.
   */
  private final List<Pending> pending = new ArrayList<>();

  private record Pending(List<String> view, String expected) {}

  /** Whether the last call to the store failed: a streak of failures is warned about once. */
  private volatile boolean failing;

  private record Seen(ShardStore.Entry entry, long changedAt) {}

  ShardMember(String id, ShardStore store, Clock clock, long leaseNanos,
      long renewDeadlineNanos) {
    this.id = Objects.requireNonNull(id, "id must not be null");
    this.store = store;
    this.clock = clock;
    this.leaseNanos = leaseNanos;
    this.renewDeadlineNanos = renewDeadlineNanos;
  }

  String id() {
    return id;
  }

  /**
   * One round: read the ring, publish the target if drained for it (else renew the view as
   * it is), and read again after a change of view.
   *
   * @return the keys this member gained with this tick's change of target, as a test on a
   *     key (never true for a key it owned before); a no-op test when the target did not change
   */
  Predicate<String> tick() {
    synchronized (tickLock) { // one round at a time (the start's first round, then the thread's)
      return tickAlone();
    }
  }

  private final Object tickLock = new Object();

  private Predicate<String> tickAlone() {
    List<String> before;
    synchronized (this) {
      if (left) {
        return key -> false;
      }
      before = target;
    }
    read();
    collectExpired();
    String expected;
    List<String> view;
    boolean leave;
    boolean delete;
    synchronized (this) {
      expected = version;
      leave = leaving;
      delete = leaving && inFlight.isEmpty();
      view = drained(target) ? target : (published != null ? published : List.of());
    }
    if (delete) {
      try {
        if (expected != null) {
          store.delete(id, expected);
        }
        synchronized (this) {
          left = true;
          published = null;
          confirmed = false;
        }
        log.info("shard member {} left the ring", id);
      } catch (Exception e) {
        failed("leaving, deleting its record", e);
      }
      return key -> false;
    }
    boolean changed;
    // Before the call: the store keeps the write at some time after this, and the others count
    // from when they see it, so a slow answer cannot stretch this member's renew deadline.
    long sentAt = clock.nanoTime();
    try {
      ShardStore.Entry stored = store.write(id, expected, view, leave);
      synchronized (this) {
        changed = !view.equals(published);
        version = stored.version();
        published = view;
        pending.clear(); // no write in doubt can land any more: the version moved on
        renewedAt = sentAt;
        everRenewed = true;
        if (changed) {
          confirmed = false;
        }
      }
    } catch (ShardStore.Conflict e) {
      log.debug("shard member {}: its record changed under it; reading it again", id);
      synchronized (this) {
        confirmed = false;
      }
      changed = true;
    } catch (Exception e) {
      // Maybe stored, maybe not, maybe stored later (the request still on its way): until that
      // is settled, this view may become ours at any time, so a key must be ours in it too.
      synchronized (this) {
        confirmed = false;
        pending.add(new Pending(view, expected));
      }
      failed("writing its record", e);
      changed = true;
    }
    if (changed) {
      read();
    }
    synchronized (this) {
      List<String> now = target;
      if (now.equals(before)) {
        return key -> false;
      }
      return key -> id.equals(Rendezvous.owner(key, now))
          && !id.equals(Rendezvous.owner(key, before));
    }
  }

  /** Logs a failed call: a warning for the first of a streak, then at debug level. */
  private void failed(String what, Exception e) {
    if (failing) {
      log.debug("shard member {}: {} failed again: {}", id, what, e.toString());
    } else {
      failing = true;
      log.warn("shard member {}: {} failed (retried every round; logged again once it"
          + " succeeds): {}", id, what, e.toString());
    }
  }

  /** Reads the ring: the others' records, ours as stored, and from them the target. */
  private void read() {
    List<ShardStore.Entry> entries;
    try {
      entries = store.list();
    } catch (Exception e) {
      failed("reading the ring", e);
      return;
    }
    if (failing) {
      failing = false;
      log.info("shard member {}: reaching the ring again", id);
    }
    long now = clock.nanoTime();
    synchronized (this) {
      Set<String> present = new HashSet<>();
      for (ShardStore.Entry e : entries) {
        if (e.id().equals(id)) {
          // Ours, as stored: a write we took for failed may have gone through.
          version = e.version();
          published = e.view();
          // a write in doubt that expected another version can never land now
          pending.removeIf(p -> !e.version().equals(p.expected()));
          continue;
        }
        present.add(e.id());
        Seen s = seen.get(e.id());
        if (s == null || !s.entry().version().equals(e.version())) {
          seen.put(e.id(), new Seen(e, now));
        }
      }
      if (entries.stream().noneMatch(e -> e.id().equals(id))) {
        version = null; // not stored (yet, or deleted): the next write creates it
        published = null;
        pending.removeIf(p -> p.expected() != null); // only a create can still land
      }
      seen.keySet().retainAll(present);
      TreeSet<String> live = new TreeSet<>();
      for (Map.Entry<String, Seen> e : seen.entrySet()) {
        if (isLive(e.getValue(), now) && !e.getValue().entry().leaving()) {
          live.add(e.getKey());
        }
      }
      if (!leaving) {
        live.add(id);
      }
      target = List.copyOf(live);
      confirmed = published != null;
    }
  }

  /**
   * Deletes the records of members counted out (unchanged for the lease duration), guarded by
   * the version seen: a crashed replica's record would otherwise look live for a lease to every
   * member that joins later. A member that was only slow writes its record anew.
   */
  private void collectExpired() {
    List<ShardStore.Entry> expired = new ArrayList<>();
    synchronized (this) {
      long now = clock.nanoTime();
      seen.values().forEach(s -> {
        if (!isLive(s, now)) {
          expired.add(s.entry());
        }
      });
    }
    for (ShardStore.Entry e : expired) {
      try {
        store.delete(e.id(), e.version());
        log.info("shard member {}: counted {} out (no renewal for the lease duration) and"
            + " deleted its record", id, e.id());
      } catch (ShardStore.Conflict c) {
        log.debug("shard member {}: {} renewed after all", id, e.id());
      } catch (Exception x) {
        log.debug("shard member {}: deleting the expired record of {} failed", id, e.id(), x);
      }
    }
  }

  private boolean isLive(Seen s, long now) {
    return now - s.changedAt() < leaseNanos;
  }

  /** Whether {@code key} is this member's in the view of every write in doubt. */
  private boolean ownsInEvery(String key, List<Pending> writes) {
    for (Pending p : writes) {
      if (!id.equals(Rendezvous.owner(key, p.view()))) {
        return false;
      }
    }
    return true;
  }

  /** Whether no key in flight belongs to another member under {@code view}. Locked. */
  private boolean drained(List<String> view) {
    for (String key : inFlight.keySet()) {
      if (!id.equals(Rendezvous.owner(key, view))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether this member may reconcile {@code key} now (rule 2); if so it is in flight until
   * {@link #release}.
   */
  synchronized boolean tryAcquire(String key) {
    if (!mayAcquire(key)) {
      return false;
    }
    inFlight.merge(key, 1, Integer::sum);
    return true;
  }

  /** Rule 2 for {@code key}, without taking it. */
  synchronized boolean mayAcquire(String key) {
    if (left || leaving || !confirmed || published == null || lost()) {
      return false;
    }
    if (!id.equals(Rendezvous.owner(key, published)) || !id.equals(Rendezvous.owner(key, target))
        || !ownsInEvery(key, pending)) {
      return false;
    }
    long now = clock.nanoTime();
    for (Map.Entry<String, Seen> e : seen.entrySet()) {
      Seen s = e.getValue();
      if (isLive(s, now) && e.getKey().equals(Rendezvous.owner(key, s.entry().view()))) {
        return false; // still claimed by its previous owner
      }
    }
    return true;
  }

  /** Ends a reconcile of {@code key} started by a successful {@link #tryAcquire}. */
  synchronized void release(String key) {
    inFlight.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
  }

  /** Whether {@code key} is this member's under its target: events for it are kept. */
  synchronized boolean owns(String key) {
    return !left && !leaving && id.equals(Rendezvous.owner(key, target));
  }

  /** Starts a graceful leave: nothing new starts; the record goes once nothing is in flight. */
  synchronized void leave() {
    leaving = true;
  }

  synchronized boolean isLeaving() {
    return leaving;
  }

  synchronized boolean hasLeft() {
    return left;
  }

  /** Whether this member has not renewed its record within the renew deadline. */
  synchronized boolean isCutOff() {
    return !left && lost();
  }

  /** Whether this member could not renew its record for the renew deadline. Locked. */
  private boolean lost() {
    return !everRenewed || clock.nanoTime() - renewedAt > renewDeadlineNanos;
  }

  /** The live members this member splits keys among now. */
  synchronized List<String> members() {
    return target;
  }

  /** This member's view as stored, or empty before it is. */
  synchronized List<String> publishedView() {
    return published == null ? List.of() : published;
  }

  /** Keys in flight now (for tests and metrics). */
  synchronized List<String> inFlight() {
    return new ArrayList<>(inFlight.keySet());
  }
}
