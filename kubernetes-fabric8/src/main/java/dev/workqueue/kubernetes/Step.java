package dev.workqueue.kubernetes;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One controller's part of an {@link Operator}'s stop, run beside the others': stopping them in
 * turn would give each its own wait, and the last one the sum of them all.
 */
record Step(String controller, Callable<Boolean> run) {
  private static final Logger log = LoggerFactory.getLogger(Step.class);

  /**
   * Runs every step on a thread of its own and waits for all of them.
   *
   * @return true if every step returned true
   */
  static boolean allAtOnce(List<Step> steps) throws InterruptedException {
    AtomicBoolean all = new AtomicBoolean(true);
    Thread[] threads = new Thread[steps.size()];
    for (int i = 0; i < threads.length; i++) {
      Step s = steps.get(i);
      threads[i] = new Thread(() -> {
        try {
          if (!Boolean.TRUE.equals(s.run().call())) {
            all.set(false);
          }
        } catch (Exception | Error e) {
          all.set(false);
          log.warn("controller {}: its stop failed", s.controller(), e);
        }
      }, "workqueue-operator-stop-" + s.controller());
      threads[i].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    return all.get();
  }
}
