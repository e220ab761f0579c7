package dev.workqueue.controller;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What one worker of a {@link ControllerRun} is doing, written only by that worker and read by
 * {@code stop} and {@code status}: its thread, the key it is reconciling (null between
 * reconciles) and when its last reconcile ended.
 *
 * <p><b>Why a slot per worker.</b> The worker writes its slot twice per reconcile; a map from
 * thread to key shared by all workers cost 16% of a worker's time at one worker and 26% at four
 * (a hash update in and out, all workers on one size counter). Here a write is a release store
 * to a line no other worker writes, and the readers, rare, pay instead: they visit every slot.
 * Release stores are eventually visible (the JDK 9 memory modes' progress rule), which is all a
 * snapshot needs; a reader that must be sure a worker is done orders itself after the worker's
 * exit ({@link ControllerRun#exited}, under a lock) and then reads null.
 *
 * <p>The hot fields sit between two blocks of padding (superclass fields are laid out first),
 * so that slots allocated one after another do not share a cache line.
 *
 * @param <T> the key type
 */
final class WorkerSlot<T> extends WorkerSlotFields<T> {
  @SuppressWarnings("unused")
  private long p10, p11, p12, p13, p14, p15, p16, p17;

  private static final VarHandle KEY;
  private static final VarHandle LAST_END;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      KEY = l.findVarHandle(WorkerSlotFields.class, "key", Object.class);
      LAST_END = l.findVarHandle(WorkerSlotFields.class, "lastEnd", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  WorkerSlot(long never) {
    LAST_END.setRelease(this, never);
  }

  /** The worker's own: it reconciles {@code key} now, or nothing ({@code null}). */
  void reconciling(T key) {
    KEY.setRelease(this, key);
  }

  /**
   * The worker's own, before it reconciles {@code key}: a volatile store, so that its next
   * volatile read (the run's {@code forced} flag) cannot come before it, and a worker of a later
   * run that does not see the key here ({@link #keyVolatile}) knows this worker sees the flag.
   */
  void claim(T key) {
    KEY.setVolatile(this, key);
  }

  /** The key being reconciled, or null: a volatile read (see {@link #claim}). */
  @SuppressWarnings("unchecked")
  T keyVolatile() {
    return (T) KEY.getVolatile(this);
  }

  /** The key being reconciled, or null. */
  @SuppressWarnings("unchecked")
  T key() {
    return (T) KEY.getAcquire(this);
  }

  /** The worker's own: a reconcile ended at {@code nanos} on the controller's clock. */
  void ended(long nanos) {
    LAST_END.setRelease(this, nanos);
  }

  /** When the worker's last reconcile ended, or the {@code never} given at construction. */
  long lastEnd() {
    return (long) LAST_END.getAcquire(this);
  }
}

/** Padding before {@link WorkerSlotFields}'s fields. */
abstract class WorkerSlotPad {
  @SuppressWarnings("unused")
  private long p00, p01, p02, p03, p04, p05, p06, p07;
}

/** The fields of a {@link WorkerSlot}, between its padding. */
abstract class WorkerSlotFields<T> extends WorkerSlotPad {
  /** The worker's thread, set once it runs; read by a stop from inside a reconcile. */
  volatile Thread thread;
  Object key; // through WorkerSlot.KEY
  long lastEnd; // through WorkerSlot.LAST_END
}
