package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * client-go's order: one first-in first-out line, linked through the entries, sorted by {@link
 * Entry#readySince} (an entry never counts as ready earlier than the one before it), so that
 * the queue can merge the due items of its waiting room into it by time without moving them
 * in first ({@link QueueEngine}).
 *
 * <p><b>The intake.</b> Besides the line, which the queue's lock guards, the order has a
 * lock-free intake: a producer that adds a new item while nothing waits pushes its entry there
 * with one compare-and-set ({@link Intake#offer}), without the queue's lock, so producers and
 * consumers do not contend for the lock. Every locked method first moves what the intake holds
 * to the end of the line, in the order it was pushed ({@link #drain}); so an entry pushed
 * before an entry is appended under the lock is ahead of it, and the intake is invisible to
 * the queue's other code. {@link #close} ends the intake for good (shutdown): an offer after
 * it fails, so no add can slip in after the queue has shut down.
 *
 * <p><b>The due line.</b> A due delayed add that the queue moves into the order before a take
 * reaches it (a count, a shutdown, an operation on that item, a metrics wake-up) became ready
 * at its ready time, perhaps before entries that joined the line since. It waits in a second
 * line, sorted by ready time, and {@link #poll} takes whichever head became ready first (the
 * main line's on a tie, as the queue's take does). So a count never changes the order in which
 * items are handed out. Due items mostly arrive in ready-time order (the waiting room hands
 * them out so) and join at the tail; one moved in out of turn (an operation on that item while
 * earlier ones still wait) is inserted in its place, by a walk that starts from the last
 * insertion, so the earlier ones that follow it in order cost a step each.
 */
final class FifoOrder<T> extends ReadyOrder<T> {
  /** The intake's value once closed. */
  @SuppressWarnings("rawtypes")
  private static final Entry CLOSED = new Entry<>("(closed)", 0);

  private static final VarHandle INTAKE;

  static {
    try {
      INTAKE = MethodHandles.lookup().findVarHandle(IntakeTop.class, "top", Entry.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Padding before {@link Intake#top}, so no other field shares its cache line. */
  @SuppressWarnings("unused")
  private static class IntakePadBefore {
    long p0, p1, p2, p3, p4, p5, p6, p7;
  }

  /**
   * The entries pushed since the last drain, the last pushed first, linked through {@link
   * Entry#behind}; null if none, {@link #CLOSED} once closed. In an object of its own, padded,
   * as producers write it while the consumer writes the line's fields.
   */
  @SuppressWarnings("unused")
  private static class IntakeTop extends IntakePadBefore {
    volatile Entry<?> top; // through INTAKE
  }

  /**
   * The intake as producers see it: they hold it directly, not through the order, whose fields
   * the consumer writes on every take.
   */
  @SuppressWarnings("unused")
  static final class Intake<T> extends IntakeTop {
    long q0, q1, q2, q3, q4, q5, q6, q7;

    /**
     * Without the lock: pushes {@code e}, READY, its {@link Entry#readySince} set. Returns
     * {@link #OFFERED_FIRST} if the intake was empty (the pusher wakes a waiting consumer;
     * later pushes find the intake non-empty until a consumer drains it, so only one producer
     * per drained batch takes the lock to signal), {@link #OFFERED} otherwise, {@link
     * #CLOSED_TO_OFFERS} if the intake is closed. The push publishes everything written before
     * it to the consumer that drains it.
     */
    @SuppressWarnings("unchecked")
    int offer(Entry<T> e) {
      while (true) {
        Entry<T> h = (Entry<T>) INTAKE.getVolatile(this);
        if (h == CLOSED) {
          return CLOSED_TO_OFFERS;
        }
        e.behind = h;
        if (INTAKE.compareAndSet(this, h, e)) {
          return h == null ? OFFERED_FIRST : OFFERED;
        }
      }
    }

    /** Without the lock: whether an entry waits here (a volatile read). */
    boolean holdsEntries() {
      Entry<?> h = top;
      return h != null && h != CLOSED;
    }
  }

  private Entry<T> head;
  private Entry<T> tail;
  /** The due line (see the class comment), linked through {@link Entry#behind} too. */
  private Entry<T> dueHead;
  private Entry<T> dueTail;
  /** The entry {@link #appendDue} placed last, while it is in the due line; else null. */
  private Entry<T> dueCursor;
  private int size; // both lines
  private final Intake<T> intake = new Intake<>();

  @Override
  Entry<T> newEntry(T item, int priority) {
    return new Entry<>(item, priority);
  }

  /** {@link Intake#offer}'s answers. */
  static final int CLOSED_TO_OFFERS = -1;
  static final int OFFERED = 0;
  static final int OFFERED_FIRST = 1;

  /** The intake, for the producers to hold. */
  Intake<T> intake() {
    return intake;
  }

  /** Under the lock: moves the intake to the end of the line, in the order it was pushed. */
  private void drain() {
    if (intake.holdsEntries()) {
      takeIntake(null); // only offers race this: the intake is not closed meanwhile
    }
  }

  /**
   * Under the lock: swaps the intake for {@code replacement} (null, or {@link #CLOSED}) in one
   * atomic step, so no push is lost between taking what it holds and closing it, and links
   * what it held to the end of the line, in the order it was pushed.
   */
  @SuppressWarnings("unchecked")
  private void takeIntake(Entry<T> replacement) {
    Entry<T> h = (Entry<T>) INTAKE.getAndSet(intake, replacement);
    if (h == CLOSED) {
      return;
    }
    Entry<T> reversed = null;
    while (h != null) {
      Entry<T> next = h.behind;
      h.behind = reversed;
      reversed = h;
      h = next;
    }
    while (reversed != null) {
      Entry<T> next = reversed.behind;
      link(reversed, reversed.readySince);
      reversed = next;
    }
  }

  /** Under the lock, at shutdown: drains the intake and closes it; later offers fail. */
  @SuppressWarnings("unchecked")
  void close() {
    takeIntake((Entry<T>) CLOSED);
  }

  @Override
  void append(Entry<T> e, long readySince) {
    drain();
    link(e, readySince);
  }

  private void link(Entry<T> e, long readySince) {
    e.readySince = tail != null && readySince - tail.readySince < 0 ? tail.readySince : readySince;
    e.behind = null;
    if (tail == null) {
      head = e;
    } else {
      tail.behind = e;
    }
    tail = e;
    size++;
  }

  @Override
  void appendDue(Entry<T> e, long readyAt) {
    e.readySince = readyAt;
    if (dueTail == null || readyAt - dueTail.readySince >= 0) { // the usual case: in order
      e.behind = null;
      if (dueTail == null) {
        dueHead = e;
      } else {
        dueTail.behind = e;
      }
      dueTail = e;
    } else if (readyAt - dueHead.readySince < 0) { // before every due entry
      e.behind = dueHead;
      dueHead = e;
    } else { // after the last entry ready at or before it, found from the cursor if it can be
      Entry<T> at = dueCursor != null && readyAt - dueCursor.readySince >= 0 ? dueCursor : dueHead;
      while (readyAt - at.behind.readySince >= 0) { // stops before the tail, which is later
        at = at.behind;
      }
      e.behind = at.behind;
      at.behind = e;
    }
    dueCursor = e;
    size++;
  }

  @Override
  Entry<T> poll(long now) {
    drain();
    Entry<T> e = head;
    if (dueFirst()) {
      e = dueHead;
      dueHead = e.behind;
      if (dueHead == null) {
        dueTail = null;
      }
      if (dueCursor == e) {
        dueCursor = null;
      }
    } else if (e != null) {
      head = e.behind;
      if (head == null) {
        tail = null;
      }
    } else {
      return null;
    }
    e.behind = null; // a popped entry holds no other entry alive
    size--;
    return e;
  }

  @Override
  int size() {
    drain();
    return size;
  }

  /** When the entry {@link #poll} hands out next became ready; only when not empty. */
  long headReadySince() {
    return dueFirst() ? dueHead.readySince : head.readySince;
  }

  /** Whether the due line's head goes first: it became ready before the main line's head. */
  private boolean dueFirst() {
    return dueHead != null && (head == null || dueHead.readySince - head.readySince < 0);
  }

  @Override
  boolean checkInvariants() {
    drain();
    int main = sortedReadyCount(head, tail);
    int due = sortedReadyCount(dueHead, dueTail);
    return main >= 0 && due >= 0 && main + due == size;
  }

  /** The entries of the line from {@code first} to {@code last}, or -1 if it is not sorted. */
  private static <T> int sortedReadyCount(Entry<T> first, Entry<T> last) {
    int n = 0;
    Entry<T> prev = null;
    for (Entry<T> e = first; e != null; e = e.behind) {
      if (e.ready != Entry.READY || (prev != null && e.readySince - prev.readySince < 0)) {
        return -1;
      }
      prev = e;
      n++;
    }
    return prev == last ? n : -1;
  }
}
