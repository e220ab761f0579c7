package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The checker the stress tests share: it records every add, hand-out and {@code done} of a run
 * over {@code int} keys and asserts the queues' promises at the end.
 *
 * <p>Keys {@code 0 .. hotKeys-1} are <em>hot</em>: producers add them again and again, so adds
 * land on queued, waiting and processing keys. Keys from {@link #uniqueKey()} are added exactly
 * once each (after a delay, or rate-limited).
 *
 * <ul>
 *   <li><b>Never two workers on one key.</b> {@link #handedOut} and {@link #finishing} bracket
 *       the processing of a key; a second hand-out inside the bracket is a violation.
 *   <li><b>No add is lost.</b> Every add is recorded on one global sequence before the call and
 *       every processing start after the hand-out: at the end, each hot key's last start must
 *       be later than its last add (the caller drains the queue first, after the waiting room
 *       has emptied, since shutdown discards waiting items by design).
 *   <li><b>Delayed items are delivered, each once, never early.</b> Each add call makes at most
 *       one more round of processing (adds of a dirty key are merged; a delayed add of a
 *       waiting key keeps the earlier ready time, which is that of one of the calls merged), so
 *       by any instant a key can have been handed out at most as many times as there were add
 *       calls for it that were ready by then. Ready times are lower bounds (read before the
 *       call) and hand-out times upper bounds (read after the hand-out), so the check errs on
 *       the lenient side and never reports a correct queue. A unique key must be handed out
 *       exactly once.
 * </ul>
 *
 * Public for the controller's stress test. Thread-safe: producers and consumers call it from their own threads; each thread logs into a
 * list of its own, merged by {@link #verify}.
 */
public final class InvariantChecker {
  /** One add call's ready time, or one hand-out: a key and a reading of the checker's time. */
  private record Event(int key, long nanos) {}

  /** The events of one thread. */
  private static final class Log {
    final List<Event> ready = new ArrayList<>();
    final List<Event> handOuts = new ArrayList<>();
  }

  private final int hotKeys;
  private final LongSupplier time;
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLongArray lastAdd;
  private final AtomicLongArray lastStart;
  private final AtomicIntegerArray busy;
  private final AtomicInteger uniqueKeys = new AtomicInteger();
  private final AtomicLong adds = new AtomicLong();
  private final AtomicLong handOuts = new AtomicLong();
  private final AtomicLong dones = new AtomicLong();
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Log> logs = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Log> log = ThreadLocal.withInitial(() -> {
    Log l = new Log();
    logs.add(l);
    return l;
  });

  /**
   * @param hotKeys how many hot keys ({@code 0 .. hotKeys-1})
   * @param time the time the queue's delays are measured on ({@code System::nanoTime} for the
   *     system clock), for the ready-time check
   */
  public InvariantChecker(int hotKeys, LongSupplier time) {
    this.hotKeys = hotKeys;
    this.time = time;
    this.lastAdd = new AtomicLongArray(hotKeys);
    this.lastStart = new AtomicLongArray(hotKeys);
    this.busy = new AtomicIntegerArray(hotKeys);
  }

  /** A key no other call of this method returns, to be added once. */
  public int uniqueKey() {
    return hotKeys + uniqueKeys.getAndIncrement();
  }

  /**
   * To call just before any add of {@code key} ({@code add}, {@code addAfter},
   * {@code addRateLimited}, {@code Controller.add}); returns the time read before the call, for
   * {@link #readyAt}.
   */
  public long beforeAdd(int key) {
    long now = time.getAsLong();
    adds.incrementAndGet();
    if (key < hotKeys) {
      lastAdd.accumulateAndGet(key, sequence.incrementAndGet(), Math::max);
    }
    return now;
  }

  /**
   * The earliest time the add call just made may lead to a hand-out: {@code beforeAdd}'s
   * reading plus the delay asked for (zero for a plain add; the limiter's answer for a
   * rate-limited add). Without it the call is not counted for the ready-time check, which
   * then only gets stricter.
   */
  public void readyAt(int key, long nanos) {
    log.get().ready.add(new Event(key, nanos));
  }

  /** To call when a worker has got {@code key}, before processing it. */
  public void handedOut(int key) {
    long now = time.getAsLong();
    handOuts.incrementAndGet();
    log.get().handOuts.add(new Event(key, now));
    if (key < hotKeys) {
      if (busy.getAndIncrement(key) != 0) {
        violation("key " + key + " handed to two workers at once");
      }
      lastStart.accumulateAndGet(key, sequence.incrementAndGet(), Math::max);
    }
  }

  /** To call when the worker is finished with {@code key}, before its {@code done}. */
  public void finishing(int key) {
    dones.incrementAndGet();
    if (key < hotKeys) {
      busy.decrementAndGet(key);
    }
  }

  /** Records a violation found by the test itself (a consumer interrupted, say). */
  public void violation(String what) {
    violations.add(what);
  }

  /**
   * A hot key being processed now, searching from {@code from}; or -1 if none is. For tests
   * that want adds to land on processing keys.
   */
  public int busyKey(int from) {
    for (int i = 0; i < hotKeys; i++) {
      int k = (from + i) % hotKeys;
      if (busy.get(k) != 0) {
        return k;
      }
    }
    return -1;
  }

  public long handOuts() {
    return handOuts.get();
  }

  /**
   * Checks the promises on everything recorded (call once every thread has stopped and the
   * queue has been drained), prints {@code "<name> stress: operations N, violations V"} and
   * fails if {@code V > 0}.
   *
   * @param readyChecked whether ready times were recorded for every add (see {@link #readyAt})
   */
  public void verify(String name, boolean readyChecked) {
    for (int k = 0; k < hotKeys; k++) {
      if (lastAdd.get(k) != 0 && lastStart.get(k) < lastAdd.get(k)) {
        violation("key " + k + ": its last add (#" + lastAdd.get(k) + ") was never followed by"
            + " a processing (last start #" + lastStart.get(k) + ")");
      }
      if (busy.get(k) != 0) {
        violation("key " + k + " is still marked busy at the end");
      }
    }
    Map<Integer, long[]> ready = byKey(logs, true);
    Map<Integer, long[]> out = byKey(logs, false);
    for (int u = hotKeys; u < hotKeys + uniqueKeys.get(); u++) {
      int times = out.getOrDefault(u, new long[0]).length;
      if (times != 1) {
        violation("unique key " + u + " was handed out " + times + " times, not once");
      }
    }
    if (readyChecked) {
      checkNoHandOutBeforeItIsReady(ready, out);
    }
    long operations = adds.get() + handOuts.get() + dones.get();
    System.out.printf("%s stress: operations %d (adds %d, hand-outs %d, dones %d,"
            + " unique keys %d), violations %d%n",
        name, operations, adds.get(), handOuts.get(), dones.get(), uniqueKeys.get(),
        violations.size());
    List<String> found = new ArrayList<>(violations);
    assertEquals(List.of(), found.subList(0, Math.min(found.size(), 20)),
        name + ": " + found.size() + " violations");
  }

  /** For each key, the i-th hand-out (in time order) must come when i add calls were ready. */
  private void checkNoHandOutBeforeItIsReady(Map<Integer, long[]> ready, Map<Integer, long[]> out) {
    for (Map.Entry<Integer, long[]> e : out.entrySet()) {
      long[] r = ready.getOrDefault(e.getKey(), new long[0]);
      long[] o = e.getValue();
      int readyCount = 0;
      for (int i = 0; i < o.length; i++) {
        while (readyCount < r.length && r[readyCount] - o[i] <= 0) {
          readyCount++;
        }
        if (readyCount < i + 1) {
          violation("key " + e.getKey() + ": hand-out #" + (i + 1) + " came when only "
              + readyCount + " add calls for it were ready (before its delay)");
          break;
        }
      }
    }
  }

  /**
   * Per key, the times as offsets from the earliest reading, sorted: readings are compared by
   * difference only (they are {@code nanoTime}-style and may wrap).
   */
  private static Map<Integer, long[]> byKey(ConcurrentLinkedQueue<Log> logs, boolean ready) {
    Long base = null;
    Map<Integer, Integer> counts = new HashMap<>();
    for (Log l : logs) {
      for (List<Event> events : List.of(l.ready, l.handOuts)) {
        for (Event e : events) {
          if (base == null || e.nanos() - base < 0) {
            base = e.nanos();
          }
        }
      }
      for (Event e : ready ? l.ready : l.handOuts) {
        counts.merge(e.key(), 1, Integer::sum);
      }
    }
    Map<Integer, long[]> out = new HashMap<>();
    Map<Integer, Integer> fill = new HashMap<>();
    counts.forEach((k, n) -> out.put(k, new long[n]));
    for (Log l : logs) {
      for (Event e : ready ? l.ready : l.handOuts) {
        int i = fill.merge(e.key(), 1, Integer::sum) - 1;
        out.get(e.key())[i] = e.nanos() - base;
      }
    }
    out.values().forEach(Arrays::sort);
    return out;
  }
}
