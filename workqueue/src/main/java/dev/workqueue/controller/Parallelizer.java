package dev.workqueue.controller;

import dev.workqueue.internal.Checks;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * client-go's {@code workqueue.ParallelizeUntil}: runs {@code pieces} numbered pieces of work
 * on up to {@code workers} threads, handing out chunks of consecutive pieces dynamically (a
 * free worker takes the next chunk), until all are done or the work is cancelled.
 */
public final class Parallelizer {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ThreadFactory DEFAULT_FACTORY = r -> {
    Thread t = new Thread(r, "workqueue-parallelize-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  };

  private Parallelizer() {}

  /**
   * {@code parallelizeUntil(cancelled, workers, pieces, work, 1)}: one piece per chunk.
   *
   * @param cancelled asked before each piece, from every worker thread; true stops the work
   * @param workers the most threads to use, the caller's included; at least 1
   * @param pieces how many pieces there are, numbered from 0; not negative
   * @param work does piece {@code i}; called concurrently from several threads
   * @throws InterruptedException if the caller is interrupted while waiting for the others;
   *     they are cancelled
   */
  public static void parallelizeUntil(BooleanSupplier cancelled, int workers, int pieces,
      IntConsumer work) throws InterruptedException {
    parallelizeUntil(cancelled, workers, pieces, work, 1);
  }

  /**
   * {@link #parallelizeUntil(BooleanSupplier, int, int, IntConsumer, int, ThreadFactory)} with
   * new daemon threads named {@code workqueue-parallelize-N}.
   *
   * @param cancelled asked before each piece, from every worker thread; true stops the work
   * @param workers the most threads to use, the caller's included; at least 1
   * @param pieces how many pieces there are, numbered from 0; not negative
   * @param work does piece {@code i}; called concurrently from several threads
   * @param chunkSize how many consecutive pieces a worker takes at a time; at least 1
   * @throws InterruptedException if the caller is interrupted while waiting for the others;
   *     they are cancelled
   */
  public static void parallelizeUntil(BooleanSupplier cancelled, int workers, int pieces,
      IntConsumer work, int chunkSize) throws InterruptedException {
    parallelizeUntil(cancelled, workers, pieces, work, chunkSize, DEFAULT_FACTORY);
  }

  /**
   * Runs {@code work.accept(i)} for every {@code i} in {@code [0, pieces)}, each exactly once
   * unless cancelled, on at most {@code min(workers, chunks)} threads where
   * {@code chunks = ceil(pieces / chunkSize)}; the calling thread is one of them and the rest
   * come from {@code threads}. {@code cancelled} is checked before each piece: once it says
   * true, no new piece starts. Returns when every worker has stopped. If a piece throws, no
   * new piece starts and the first throwable is rethrown (unchecked ones as they are).
   *
   * @param cancelled asked before each piece, from every worker thread; true stops the work
   * @param workers the most threads to use, the caller's included; at least 1
   * @param pieces how many pieces there are, numbered from 0; not negative
   * @param work does piece {@code i}; called concurrently from several threads
   * @param chunkSize how many consecutive pieces a worker takes at a time; at least 1
   * @param threads makes the {@code min(workers, chunks) - 1} extra threads, started at once;
   *     if it throws or returns null (or a thread fails to start), no new piece starts and the
   *     call fails with that throwable (a {@link NullPointerException} for null) once the
   *     threads already started have stopped
   * @throws NullPointerException if {@code cancelled}, {@code work} or {@code threads} is
   *     null
   * @throws IllegalArgumentException if {@code workers < 1}, {@code pieces < 0} or
   *     {@code chunkSize < 1} (client-go silently does nothing for {@code workers < 1})
   * @throws InterruptedException if the caller is interrupted while waiting for the others;
   *     they are cancelled
   */
  public static void parallelizeUntil(BooleanSupplier cancelled, int workers, int pieces,
      IntConsumer work, int chunkSize, ThreadFactory threads) throws InterruptedException {
    Checks.nonNull(cancelled, "cancelled");
    Checks.nonNull(work, "work");
    Checks.nonNull(threads, "threads");
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, was " + workers);
    }
    if (pieces < 0) {
      throw new IllegalArgumentException("pieces must not be negative, was " + pieces);
    }
    if (chunkSize < 1) {
      throw new IllegalArgumentException("chunkSize must be at least 1, was " + chunkSize);
    }
    if (pieces == 0) {
      return;
    }
    int chunks = (int) ((pieces + (long) chunkSize - 1) / chunkSize);
    int n = Math.min(workers, chunks);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Runnable worker = chunkWorker(cancelled, pieces, work, chunkSize, chunks, failure);
    List<Thread> started = startThreads(threads, worker, n, failure);
    worker.run(); // starts no piece once a failure is recorded
    try {
      for (Thread t : started) {
        t.join();
      }
    } catch (InterruptedException e) {
      failure.compareAndSet(null, e); // stops the others at their next piece
      throw e;
    }
    rethrow(failure.get());
  }

  /**
   * A worker: takes the next chunk until none is left, and does its pieces; stops before a
   * piece once a failure is recorded or the work is cancelled, and records what a piece threw.
   */
  private static Runnable chunkWorker(BooleanSupplier cancelled, int pieces, IntConsumer work,
      int chunkSize, int chunks, AtomicReference<Throwable> failure) {
    AtomicInteger nextChunk = new AtomicInteger();
    return () -> {
      try {
        for (int c = nextChunk.getAndIncrement(); c < chunks; c = nextChunk.getAndIncrement()) {
          int end = (int) Math.min(pieces, (long) (c + 1) * chunkSize);
          for (int i = c * chunkSize; i < end; i++) {
            if (failure.get() != null || cancelled.getAsBoolean()) {
              return;
            }
            work.accept(i);
          }
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
    };
  }

  /**
   * Starts the {@code n - 1} extra workers; the threads started, even if one could not be
   * made or started (then that failure is recorded).
   */
  private static List<Thread> startThreads(ThreadFactory threads, Runnable worker, int n,
      AtomicReference<Throwable> failure) {
    List<Thread> started = new ArrayList<>(n - 1);
    try {
      for (int i = 1; i < n; i++) {
        Thread t = threads.newThread(worker);
        if (t == null) {
          throw new NullPointerException("threads (the ThreadFactory) returned null for worker "
              + (i + 1) + " of " + n);
        }
        t.start();
        started.add(t);
      }
    } catch (Throwable e) { // no thread left (or a factory that threw a checked exception
      // sneakily): the work fails, and the threads already started stop at their next piece,
      // joined by the caller
      failure.compareAndSet(null, e);
    }
    return started;
  }

  /** Throws {@code t}, if any: unchecked as it is, checked wrapped. */
  private static void rethrow(Throwable t) {
    if (t instanceof RuntimeException re) {
      throw re;
    } else if (t instanceof Error err) {
      throw err;
    } else if (t != null) {
      throw new IllegalStateException("a piece failed", t);
    }
  }
}
