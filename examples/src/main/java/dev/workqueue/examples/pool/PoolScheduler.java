package dev.workqueue.examples.pool;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A per-pool claim scheduler: pairs incoming {@link ClaimRequest}s with idle pods, the seed's
 * {@code PoolScheduler}. One instance per pool, one thread ({@code poolsched-<pool>-loop})
 * that never blocks on the apiserver; claim writes run on other threads, at most
 * {@code maxConcurrentClaims} (128) at once. See the {@linkplain dev.workqueue.examples.pool
 * package documentation} for how the pieces fit and why.
 *
 * <pre>{@code
 * PoolScheduler scheduler = PoolScheduler.builder("pool-a", api).build();
 * scheduler.start();
 * ClaimRequest request = ClaimRequest.withTimeout("req-1", Duration.ofSeconds(30));
 * if (!scheduler.enqueue(request)) {
 *   return tooManyRequests();               // backpressure: the buffer is full
 * }
 * Claim claim = request.result().join();     // or compose on the future
 * ...
 * scheduler.notifyIdle();                   // from the reconciler, after a pod went Idle
 * scheduler.shutdown(Duration.ofSeconds(5)); // fails what still waits, stops every thread
 * }</pre>
 *
 * <p>Thread-safe: {@link #enqueue}, {@link #notifyIdle} and {@link #snapshot} may be called
 * from any thread, at any rate; none of them blocks.
 */
public final class PoolScheduler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PoolScheduler.class);
  /** Timeouts are clamped here (~146 years) so that deadline arithmetic cannot overflow. */
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE >> 1;

  private enum Outcome { DRAINED, CAPPED, STARVED }

  private final String pool;
  private final PodApi api;
  private final Clock clock;
  private final Executor claimExecutor;
  private final PoolSchedulerBuilder.ClaimPool ownedPool; // null with the caller's executor
  private final String threadPrefix;

  private final DelayingQueue<Signal> signals;
  private final Intake intake;
  private final ReadyPods ready;
  private final PollTimer poll;
  private final IdleNotifications idle;
  private final ClaimRunner claims;
  private final Object lifecycle = new Object();
  private Thread loopThread; // guarded by lifecycle
  private boolean started; // guarded by lifecycle

  // The scheduler's thread only.
  private final ArrayDeque<ClaimRequest> waiting = new ArrayDeque<>();
  private boolean scaleUpRaised;
  private int handedOutThisPass;

  // Any thread.
  private final AtomicBoolean scaleUpInFlight = new AtomicBoolean();
  private final AtomicLong timedOut = new AtomicLong();
  private final AtomicLong scaleUps = new AtomicLong();
  private final AtomicLong refreshes = new AtomicLong();
  private final AtomicLong polls = new AtomicLong();

  PoolScheduler(PoolSchedulerBuilder b) {
    this.pool = b.pool;
    this.api = b.api;
    this.clock = b.clock;
    this.threadPrefix = "poolsched-" + pool;
    if (b.claimExecutor != null) {
      this.claimExecutor = b.claimExecutor;
      this.ownedPool = null;
    } else {
      // One thread more than the cap, so that the scale-up write never queues behind claims.
      this.ownedPool = new PoolSchedulerBuilder.ClaimPool(threadPrefix, b.maxConcurrentClaims + 1);
      this.claimExecutor = ownedPool.executor;
    }
    this.signals = WorkQueue.<Signal>builder().clock(clock).buildDelaying();
    this.intake = new Intake(b.requestBuffer, clock, signals);
    this.ready = new ReadyPods(clock, b.reservationTtl);
    this.poll = new PollTimer(b.pollBase, b.pollMax, signals);
    this.idle = new IdleNotifications(clock, b.idleNotifyDelay, signals);
    this.claims = new ClaimRunner(pool, api, clock, ready, signals, intake, b.reservationTtl,
        b.maxConcurrentClaims, claimExecutor, this::expire);
  }

  /**
   * A builder for a scheduler of {@code pool} on {@code api}. Defaults (the seed's): the
   * system clock, reservation TTL 2 s, 128 concurrent claims, a buffer of 1024 requests, poll
   * back-off 10 s doubling to 5 min, idle notifications acted on after 200 ms, claims on a
   * pool of threads owned by the scheduler.
   *
   * @throws NullPointerException if {@code pool} or {@code api} is null
   * @throws IllegalArgumentException if {@code pool} is blank
   */
  public static PoolSchedulerBuilder builder(String pool, PodApi api) {
    return new PoolSchedulerBuilder(pool, api);
  }

  /** The pool this scheduler serves. */
  public String pool() {
    return pool;
  }

  /**
   * Starts the scheduler's thread. Requests enqueued before are served from now on.
   *
   * @throws IllegalStateException if already started or shut down
   */
  public void start() {
    synchronized (lifecycle) {
      if (intake.isClosed()) {
        throw new IllegalStateException("pool " + pool + ": scheduler is shut down");
      }
      if (started) {
        throw new IllegalStateException("pool " + pool + ": scheduler already started");
      }
      started = true;
      loopThread = new Thread(this::loop, threadPrefix + "-loop");
      loopThread.setDaemon(true);
      loopThread.start();
    }
  }

  /**
   * Hands {@code request} to the scheduler: the seed's {@code Enqueue}. Never blocks.
   *
   * @return true if accepted: its future will complete. False, leaving the request untouched
   *     (it may be enqueued again later), if {@code requestBuffer} requests are already
   *     outstanding or the scheduler is shut down: the caller turns that into backpressure
   *     (HTTP 429, say)
   * @throws NullPointerException if {@code request} is null
   * @throws IllegalStateException if {@code request} was accepted before, here or elsewhere
   */
  public boolean enqueue(ClaimRequest request) {
    Objects.requireNonNull(request, "request");
    if (!request.markEnqueued()) {
      throw new IllegalStateException(request + " was enqueued already");
    }
    return intake.offer(request);
  }

  /**
   * Says that a pod of this pool has just become Idle (Stopping → Idle): the seed's
   * {@code NotifyIdle}. The scheduler refreshes its idle pods {@code idleNotifyDelay} later,
   * giving the informer cache time to see the write; a storm of notifications costs one
   * refresh per delay. Never blocks; ignored after shutdown.
   */
  public void notifyIdle() {
    idle.notifyIdle();
  }

  /**
   * The counters now: see {@link Snapshot}. Lock-free, a handful of atomic reads and one
   * small allocation; safe from any thread.
   */
  public Snapshot snapshot() {
    return new Snapshot(ready.readyCount(), intake.outstanding(), ready.reservedCount(),
        claims.inflight(), intake.enqueued(), intake.rejected(), claims.claimed(),
        claims.conflicts(), claims.failed(), timedOut.get(), scaleUps.get(), refreshes.get(),
        polls.get(), poll.intervalNanos(), claims.lastClaimNanos());
  }

  /** Whether {@link #shutdown} has been called. */
  public boolean isShutdown() {
    return intake.isClosed();
  }

  /**
   * Stops the scheduler: the seed's {@code Shutdown}. Later enqueues return false; the
   * scheduler's thread stops taking wake-ups; claims under way finish (a conflict now fails
   * its request instead of requeueing it); every request still waiting fails with
   * {@link ClaimException.Reason#SHUT_DOWN}; the scheduler's own claim threads are stopped.
   * Waits at most {@code timeout} of real time (it waits for threads, not for the scheduler's
   * clock), then interrupts what is left. With a caller-supplied claim executor, claims under
   * way are not waited for: they end their requests when they return. Idempotent; a second
   * caller waits for the first.
   *
   * @return true if every thread the scheduler started has stopped and every waiting request
   *     has been failed
   * @throws InterruptedException if interrupted while waiting; the scheduler stays shut down
   * @throws NullPointerException if {@code timeout} is null
   */
  public boolean shutdown(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    long deadline = System.nanoTime() + saturatedNanos(timeout);
    synchronized (lifecycle) {
      intake.close();
      signals.shutDown(); // wakes the loop; discards the wake-ups waiting for their time
      boolean loopStopped = true;
      Thread loop = loopThread;
      if (loop != null) {
        loopStopped = joinUntil(loop, deadline);
      }
      boolean claimsStopped = ownedPool == null || ownedPool.stop(deadline);
      failEveryWaitingRequest(loopStopped);
      return loopStopped && claimsStopped;
    }
  }

  /** {@link #shutdown(Duration)} with 30 s. */
  @Override
  public void close() {
    try {
      shutdown(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- the scheduler's thread ------------------------------------------------------------

  private void loop() {
    try {
      while (true) {
        Optional<Signal> first = signals.get();
        if (first.isEmpty() || intake.isClosed()) {
          return;
        }
        handle(first.get());
      }
    } catch (InterruptedException e) {
      // shutdown ran out of time and interrupted us: stop.
    } catch (RuntimeException | Error e) {
      log.error("pool {}: the scheduler's thread died; waiting requests fail at shutdown", pool, e);
      throw e;
    }
  }

  /**
   * Runs what the scheduler's thread would do for the wake-ups queued now, in the calling
   * thread: for deterministic tests of a scheduler that was not {@link #start}ed.
   *
   * @return whether there was anything to do
   */
  boolean runPending() {
    synchronized (lifecycle) {
      if (started) {
        throw new IllegalStateException("the scheduler's own thread is running");
      }
    }
    Optional<Signal> first = pollNow();
    if (first.isEmpty() || intake.isClosed()) {
      return false;
    }
    handle(first.get());
    return true;
  }

  /**
   * One round: takes the wake-ups queued when it began, then acts once. A burst of requests,
   * conflicts and notifications costs one round, at most one listing of idle pods and one
   * dispatch pass. (Only those queued at the start: producers re-adding {@code REQUEST} as
   * fast as it is taken would otherwise keep the round from ever acting.)
   */
  private void handle(Signal first) {
    boolean resetBackoff = false;
    boolean refresh = false;
    int more = signals.size();
    for (Optional<Signal> next = Optional.of(first); next.isPresent();
        next = more-- > 0 ? pollNow() : Optional.empty()) {
      Signal s = next.get();
      signals.done(s); // at once: a wake-up arriving from now on is queued again
      if (s instanceof Signal.Wake w) {
        switch (w) {
          case REQUEST, CONFLICT -> resetBackoff = true;
          case IDLE -> {
            resetBackoff = true;
            refresh = true;
            idle.taken();
          }
          case CLAIM_FINISHED -> { }
        }
      } else if (s instanceof Signal.Poll p) {
        if (poll.fired(p)) {
          polls.incrementAndGet();
          refresh = true;
        }
      } else if (s instanceof Signal.Recheck) {
        refresh = true;
      } else if (s instanceof Signal.Expire e) {
        expire(e.request());
      }
    }
    intake.drainTo(waiting);
    if (resetBackoff) {
      poll.reset();
    }
    if (refresh) {
      refresh();
    }
    Outcome outcome = dispatch(refresh);
    afterDispatch(outcome, handedOutThisPass > 0);
  }

  /**
   * Hands pods to waiting requests, oldest first, until no request waits, the cap is
   * reached, or no pod is ready even after one refresh.
   */
  private Outcome dispatch(boolean refreshed) {
    handedOutThisPass = 0;
    while (true) {
      ClaimRequest request = waiting.peekFirst();
      if (request == null) {
        return Outcome.DRAINED;
      }
      if (request.isDone()) { // withdrawn, or timed out
        waiting.pollFirst();
        continue;
      }
      if (claims.atCap()) {
        return Outcome.CAPPED; // the next claim to finish wakes us
      }
      PodRef pod = ready.takeAndReserve();
      if (pod == null && !refreshed) {
        refresh();
        refreshed = true;
        pod = ready.takeAndReserve();
      }
      if (pod == null) {
        return Outcome.STARVED;
      }
      waiting.pollFirst();
      claims.start(request, pod);
      handedOutThisPass++;
    }
  }

  /**
   * The poll back-off and the scale-up signal follow starvation episodes: an episode begins
   * when a pass finds requests waiting and no pod, and ends when nothing waits. Within one,
   * the poll interval doubles each time the poll finds nothing, and goes back to the base
   * on a new request, an idle notification, a conflict, or a pass that handed out a pod.
   * The scale-up signal is raised once per episode.
   */
  private void afterDispatch(Outcome outcome, boolean gavePods) {
    if (gavePods) {
      poll.reset(); // pods were idle after all: the poll starts again from the base
    }
    switch (outcome) {
      case DRAINED -> {
        poll.reset();
        scaleUpRaised = false;
      }
      case CAPPED -> { }
      case STARVED -> {
        if (!poll.isArmed()) {
          poll.arm();
        }
        if (!scaleUpRaised) {
          scaleUpRaised = true;
          raiseScaleUp(waitingLive());
        }
      }
    }
  }

  private int waitingLive() {
    int n = 0;
    for (ClaimRequest r : waiting) {
      if (!r.isDone()) {
        n++;
      }
    }
    return n;
  }

  private void refresh() {
    refreshes.incrementAndGet();
    try {
      ready.admit(api.listIdle(pool));
    } catch (RuntimeException e) {
      log.warn("pool {}: listing idle pods failed; the poll will try again", pool, e);
    }
  }

  private void expire(ClaimRequest request) {
    if (!request.claiming && request.fail(ClaimException.Reason.TIMED_OUT,
        request + ": no idle pod in pool " + pool + " within " + request.timeout(), null)) {
      timedOut.incrementAndGet();
    }
  }

  /** Single flight: a raise while the previous write is still under way is dropped. */
  private void raiseScaleUp(int waitingNow) {
    if (!scaleUpInFlight.compareAndSet(false, true)) {
      return;
    }
    scaleUps.incrementAndGet();
    try {
      claimExecutor.execute(() -> {
        try {
          api.markScaleUpPending(pool, waitingNow);
        } catch (Exception e) {
          log.warn("pool {}: marking scale-up pending failed", pool, e);
        } finally {
          scaleUpInFlight.set(false);
        }
      });
    } catch (RejectedExecutionException e) {
      scaleUpInFlight.set(false);
      log.warn("pool {}: the claim executor refused the scale-up write", pool, e);
    }
  }

  // ---- helpers ---------------------------------------------------------------------------

  private Optional<Signal> pollNow() {
    try {
      return signals.poll(Duration.ZERO);
    } catch (InterruptedException e) { // poll(ZERO) does not wait
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private void failEveryWaitingRequest(boolean loopStopped) {
    String message = "pool " + pool + ": scheduler shut down";
    List<ClaimRequest> all = new ArrayList<>();
    if (loopStopped) { // otherwise `waiting` still belongs to the loop
      all.addAll(waiting);
      waiting.clear();
    }
    all.addAll(intake.takeAll());
    for (ClaimRequest r : all) {
      r.fail(ClaimException.Reason.SHUT_DOWN, message, null);
    }
  }

  private static boolean joinUntil(Thread thread, long deadline) throws InterruptedException {
    long left = deadline - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.timedJoin(thread, left);
    }
    if (thread.isAlive()) {
      thread.interrupt();
      thread.join(100);
    }
    return !thread.isAlive();
  }

  static long saturatedNanos(Duration d) {
    if (d.isNegative()) {
      return 0;
    }
    try {
      return Math.min(d.toNanos(), MAX_TIMEOUT_NANOS);
    } catch (ArithmeticException e) {
      return MAX_TIMEOUT_NANOS;
    }
  }
}
