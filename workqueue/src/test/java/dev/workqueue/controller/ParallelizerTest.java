package dev.workqueue.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ParallelizerTest {

  @ParameterizedTest(name = "pieces={0} workers={1} chunk={2}")
  @CsvSource({"1000, 10, 1", "1000, 10, 10", "1000, 10, 100", "999, 10, 13", "5, 10, 1", "1, 1, 1"})
  void everyPieceRunsExactlyOnce(int pieces, int workers, int chunk) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(pieces);
    Set<Thread> threads = ConcurrentHashMap.newKeySet();
    Parallelizer.parallelizeUntil(() -> false, workers, pieces, i -> {
      runs.incrementAndGet(i);
      threads.add(Thread.currentThread());
    }, chunk);
    for (int i = 0; i < pieces; i++) {
      assertEquals(1, runs.get(i), "piece " + i);
    }
    int chunks = (pieces + chunk - 1) / chunk;
    assertTrue(threads.size() <= Math.min(workers, chunks), "threads: " + threads.size());
  }

  @Test
  void cancellation_stopsNewPieces() throws Exception {
    int workers = 4;
    AtomicBoolean cancelled = new AtomicBoolean();
    AtomicInteger started = new AtomicInteger();
    Parallelizer.parallelizeUntil(cancelled::get, workers, 100_000, i -> {
      if (started.incrementAndGet() == 100) {
        cancelled.set(true);
      }
    }, 1);
    // Each worker may have passed its check just before the flag was set.
    assertTrue(started.get() < 100 + workers, "started after cancellation: " + started.get());
  }

  @Test
  void zeroPieces_returnsAtOnce_andBadArgumentsFail() throws Exception {
    Parallelizer.parallelizeUntil(() -> false, 3, 0, i -> {
      throw new AssertionError("no piece");
    });
    assertThrows(IllegalArgumentException.class,
        () -> Parallelizer.parallelizeUntil(() -> false, 0, 10, i -> {}));
    assertThrows(IllegalArgumentException.class,
        () -> Parallelizer.parallelizeUntil(() -> false, 1, -1, i -> {}));
    assertThrows(IllegalArgumentException.class,
        () -> Parallelizer.parallelizeUntil(() -> false, 1, 10, i -> {}, 0));
  }

  @Test
  void aFailingPiece_stopsTheRest_andIsRethrown() {
    IllegalStateException boom = new IllegalStateException("boom");
    AtomicInteger ran = new AtomicInteger();
    IllegalStateException thrown = assertThrows(IllegalStateException.class, () ->
        Parallelizer.parallelizeUntil(() -> false, 1, 1000, i -> {
          ran.incrementAndGet();
          if (i == 10) {
            throw boom;
          }
        }));
    assertSame(boom, thrown);
    assertEquals(11, ran.get());
  }

  /**
   * The thread factory fails for the second extra thread (as {@code Thread.start} does when the
   * system has no threads left): the call must fail with that exception only once the thread
   * already started has stopped, having started no new piece, and not leave it running pieces
   * after the caller was told the work failed. The started thread's first piece ends only once
   * the caller waits for it (so the failure is recorded by then); any other piece would block.
   */
  @ParameterizedTest(name = "factory {0}")
  @CsvSource({"throws", "returns null"})
  @org.junit.jupiter.api.Timeout(30)
  void aFailingThreadFactory_stopsTheStartedThreads_beforeTheCallFails(String how)
      throws Exception {
    java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
    Set<Integer> ran = ConcurrentHashMap.newKeySet();
    java.util.List<Thread> made = new java.util.concurrent.CopyOnWriteArrayList<>();
    IllegalStateException noThreads = new IllegalStateException("no threads left");
    java.util.concurrent.ThreadFactory factory = r -> {
      if (made.isEmpty()) {
        Thread t = new Thread(r, "parallelizer-test-worker");
        t.setDaemon(true);
        made.add(t);
        return t;
      }
      if (how.equals("throws")) {
        throw noThreads;
      }
      return null;
    };
    Thread caller = Thread.currentThread();
    AtomicBoolean returned = new AtomicBoolean();
    Thread opener = new Thread(() -> {
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(
          () -> returned.get() || caller.getState() == Thread.State.WAITING);
      gate.countDown();
    }, "gate opener");
    opener.setDaemon(true);
    opener.start();
    try {
      RuntimeException thrown = assertThrows(RuntimeException.class, () ->
          Parallelizer.parallelizeUntil(() -> false, 3, 3, i -> {
            ran.add(i);
            try {
              (i == 0 ? gate : hold).await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }, 1, factory));
      returned.set(true);
      if (how.equals("throws")) {
        assertSame(noThreads, thrown);
      } else {
        assertTrue(thrown instanceof NullPointerException, thrown.toString());
        assertTrue(String.valueOf(thrown.getMessage()).contains("threads"), thrown.getMessage());
      }
      assertEquals(1, made.size());
      org.junit.jupiter.api.Assertions.assertFalse(made.get(0).isAlive(),
          "the thread started before the factory failed still runs pieces");
      // piece 0 ran if the started thread took it before the caller did (the caller starts
      // no piece once the failure is recorded)
      assertTrue(ran.isEmpty() || ran.equals(Set.of(0)), "pieces started after the failure: "
          + ran);
    } finally {
      returned.set(true);
      gate.countDown();
      hold.countDown();
    }
  }
}
