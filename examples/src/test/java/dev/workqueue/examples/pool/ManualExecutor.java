package dev.workqueue.examples.pool;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;

/** Runs nothing until told: claim writes happen exactly when a test says so. */
final class ManualExecutor implements Executor {
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

  @Override
  public synchronized void execute(Runnable task) {
    tasks.add(Objects.requireNonNull(task, "task"));
  }

  synchronized int pending() {
    return tasks.size();
  }

  /** Runs every task, including those the tasks submit; returns how many ran. */
  int runAll() {
    int n = 0;
    while (true) {
      Runnable next;
      synchronized (this) {
        next = tasks.poll();
      }
      if (next == null) {
        return n;
      }
      next.run();
      n++;
    }
  }
}
