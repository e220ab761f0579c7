package dev.workqueue.examples.pool;

import dev.workqueue.DelayingQueue;
import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim writes of a {@link PoolScheduler}: the seed's {@code doCAS} goroutines, on the
 * claim executor, at most {@code maxConcurrentClaims} at once. A success completes the
 * request; a conflict keeps the pod reserved, sets a {@link Signal.Recheck} for when the
 * reservation runs out and puts the request back at the head of the line; any other failure
 * releases the pod and fails the request.
 *
 * <p>{@link #start} and {@link #atCap} are called by the scheduler's thread; the rest by
 * claim threads and {@code snapshot}.
 */
final class ClaimRunner {
  private static final Logger log = LoggerFactory.getLogger(PoolScheduler.class);

  private final String pool;
  private final PodApi api;
  private final Clock clock;
  private final ReadyPods ready;
  private final DelayingQueue<Signal> signals;
  private final Intake intake;
  private final Duration reservationTtl;
  private final int maxConcurrent;
  private final Executor executor;
  private final Consumer<ClaimRequest> onDeadlinePassed;

  private final AtomicInteger inflight = new AtomicInteger();
  private final AtomicBoolean waitingForSlot = new AtomicBoolean();
  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile long lastClaimNanos;

  ClaimRunner(String pool, PodApi api, Clock clock, ReadyPods ready, DelayingQueue<Signal> signals,
      Intake intake, Duration reservationTtl, int maxConcurrent, Executor executor,
      Consumer<ClaimRequest> onDeadlinePassed) {
    this.pool = pool;
    this.api = api;
    this.clock = clock;
    this.ready = ready;
    this.signals = signals;
    this.intake = intake;
    this.reservationTtl = reservationTtl;
    this.maxConcurrent = maxConcurrent;
    this.executor = executor;
    this.onDeadlinePassed = onDeadlinePassed;
  }

  int inflight() {
    return inflight.get();
  }

  long claimed() {
    return claimed.get();
  }

  long conflicts() {
    return conflicts.get();
  }

  long failed() {
    return failed.get();
  }

  long lastClaimNanos() {
    return lastClaimNanos;
  }

  /** Hands {@code pod}, reserved, to a claim write for {@code request}. */
  void start(ClaimRequest request, PodRef pod) {
    request.claiming = true;
    inflight.incrementAndGet();
    try {
      executor.execute(() -> run(request, pod));
    } catch (RejectedExecutionException e) {
      request.claiming = false;
      inflight.decrementAndGet();
      ready.release(pod);
      failed.incrementAndGet();
      request.fail(ClaimException.Reason.API_ERROR, "the claim executor refused " + request, e);
    }
  }

  /** The seed's {@code doCAS}. */
  private void run(ClaimRequest request, PodRef pod) {
    boolean requeue = false;
    try {
      if (request.isDone()) { // withdrawn while it waited for a thread: the pod is untouched
        ready.release(pod);
        return;
      }
      request.attempts++;
      ClaimOutcome outcome = Objects.requireNonNull(
          api.claim(pool, pod, request), "PodApi.claim returned null");
      if (outcome == ClaimOutcome.CLAIMED) {
        lastClaimNanos = clock.nanoTime();
        claimed.incrementAndGet();
        if (!request.result().complete(new Claim(pool, pod, request.attempts))) {
          log.warn("pool {}: {} was withdrawn while {} was being claimed for it; the pod"
              + " stays claimed", pool, request, pod.name());
        }
      } else {
        // The pod keeps its reservation (someone else may really have it); once the
        // reservation runs out, look again in case it is still idle.
        conflicts.incrementAndGet();
        signals.addAfter(new Signal.Recheck(pod), reservationTtl);
        requeue = true;
      }
    } catch (Throwable t) {
      ready.release(pod);
      failed.incrementAndGet();
      request.fail(ClaimException.Reason.API_ERROR,
          "claiming " + pod.name() + " for " + request + " failed", t);
      if (t instanceof VirtualMachineError vme) {
        throw vme;
      }
    } finally {
      request.claiming = false;
      if (requeue) {
        requeue(request);
      }
      inflight.decrementAndGet();
      if (waitingForSlot.compareAndSet(true, false)) {
        signals.add(Signal.Wake.CLAIM_FINISHED);
      }
    }
  }

  /**
   * Whether the cap is reached; if so, the next claim to finish sends a wake-up. The flag is
   * set before the second look, so a claim finishing in between is either seen here or sees
   * the flag.
   */
  boolean atCap() {
    if (inflight.get() < maxConcurrent) {
      return false;
    }
    waitingForSlot.set(true);
    if (inflight.get() < maxConcurrent) {
      waitingForSlot.set(false); // a claim finished meanwhile (a spurious wake-up at worst)
      return false;
    }
    return true;
  }

  private void requeue(ClaimRequest request) {
    if (request.timeout() != null && clock.nanoTime() - request.deadlineNanos >= 0) {
      onDeadlinePassed.accept(request);
      return;
    }
    if (!intake.requeue(request)) {
      request.fail(ClaimException.Reason.SHUT_DOWN,
          "pool " + pool + ": scheduler shut down while " + request + " was being retried", null);
    }
  }
}
