package dev.workqueue.testsupport;

import java.lang.ref.WeakReference;

/** For memory tests of every module: whether an object the caller dropped is collected. */
public final class Reachability {
  private Reachability() {}

  /** Whether {@code ref}'s referent is collected within 50 requested collections. */
  public static boolean collected(WeakReference<?> ref) {
    return collected(ref, 50);
  }

  /** Whether {@code ref}'s referent is collected within {@code tries} requested collections. */
  public static boolean collected(WeakReference<?> ref, int tries) {
    for (int i = 0; i < tries && ref.get() != null; i++) {
      System.gc();
      Thread.onSpinWait();
    }
    return ref.get() == null;
  }
}
