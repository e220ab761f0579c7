package dev.workqueue;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Threads for the queue tests that block: start a call on a thread of its own and wait until
 * that thread is parked inside the queue (truly asynchronous, so Awaitility), then act on the
 * queue and look at the outcome. Threads are daemons and {@link #close} interrupts and joins
 * the ones still running, so a failing test leaves nothing behind.
 *
 * <p>"Parked" means WAITING or TIMED_WAITING, and not merely queued for the queue's lock (a
 * thread in {@code ReentrantLock.lock} is WAITING too, for a moment, before it gets to the
 * condition it will wait on). The check does not depend on the names of the queue's classes.
 */
final class QueueThreads implements AutoCloseable {

  /** A call that may block and throw. */
  @FunctionalInterface
  interface Blocking<R> {
    R call() throws Exception;
  }

  /** A call running on its own thread: the thread, and the call's outcome. */
  record Running<R>(Thread thread, CompletableFuture<R> result) {}

  private final List<Thread> threads = new ArrayList<>();

  /** Starts {@code call} on a daemon thread named {@code name}; returns at once. */
  <R> Running<R> start(String name, Blocking<R> call) {
    CompletableFuture<R> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        result.complete(call.call());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, name);
    t.setDaemon(true);
    synchronized (threads) {
      threads.add(t);
    }
    t.start();
    return new Running<>(t, result);
  }

  /** Starts {@code call} and returns once its thread is parked in it (or the call ended). */
  <R> Running<R> parked(String name, Blocking<R> call) {
    Running<R> r = start(name, call);
    await().atMost(10, SECONDS).until(() -> r.result().isDone() || isParked(r.thread()));
    return r;
  }

  /** Waits until {@code t} is parked (see the class comment). */
  static void awaitParked(Thread t) {
    await().atMost(10, SECONDS).until(() -> isParked(t));
  }

  /** Whether {@code t} waits or sleeps, other than for a lock it is about to get. */
  static boolean isParked(Thread t) {
    Thread.State s = t.getState();
    if (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING) {
      return false;
    }
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getClassName().equals("java.util.concurrent.locks.ReentrantLock")
          && e.getMethodName().startsWith("lock")) {
        return false;
      }
    }
    return true;
  }

  /**
   * Waits until {@code n} threads anywhere in the JVM are parked inside a queue method: a frame
   * of a main class of this toolkit (package {@code dev.workqueue}, not a test class).
   */
  static void awaitWaiting(int n) {
    await().atMost(10, SECONDS).until(() -> Thread.getAllStackTraces().keySet().stream()
        .filter(QueueThreads::isParked)
        .filter(QueueThreads::isInQueueCall)
        .count() >= n);
  }

  private static boolean isInQueueCall(Thread t) {
    for (StackTraceElement e : t.getStackTrace()) {
      String c = e.getClassName();
      if (c.startsWith("dev.workqueue.") && !c.contains("Test") && !c.contains("QueueThreads")) {
        return true;
      }
    }
    return false;
  }

  /** Interrupts and joins the threads still running. */
  @Override
  public void close() {
    List<Thread> all;
    synchronized (threads) {
      all = List.copyOf(threads);
    }
    for (Thread t : all) {
      t.interrupt();
    }
    try {
      for (Thread t : all) {
        t.join(10_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the test's own thread: let its runner see it
    }
  }
}
