package dev.workqueue.examples.pool;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.clock.Clock;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A per-pool claim scheduler (after a sandbox-pool scheduler written in Go): {@link #enqueue}
 * pairs claim requests with the pool's idle pods, each pod going to exactly one request. One
 * thread runs rounds and never waits for the apiserver; claims run on the caller's executor.
 * Every reason to run a round is an item of a {@code DelayingQueue<Signal>}, added now or
 * after a delay: its dedup turns a burst into one round, its delays are the timers. Idle pods
 * wait in a {@code WorkQueue} (FIFO, one entry per pod); a pod handed to a claim is reserved in
 * a Caffeine cache that expires on the injected clock; while requests wait and no pod is idle,
 * the poll backs off with {@code RateLimiters.exponential}. Thread-safe: {@link #enqueue},
 * {@link #notifyIdle} and {@link #stats} never block.
 */
public final class PoolScheduler {
  /** One pool's pods as the scheduler sees them. Thread-safe: claims run concurrently. */
  public interface PodApi {
    /** The pods the informer cache shows Idle: a local read, stale by the watch lag. */
    List<String> listIdle();

    /** Moves {@code pod} Idle → Starting: true if claimed, false on a conflict; else throws. */
    boolean claim(String pod, String requestId) throws Exception;

    /** Asks the autoscaler for more pods: {@code waiting} requests found none idle. */
    void markScaleUpPending(int waiting);
  }

  /** A request: {@code pod} completes with the claimed pod's name. Cancel it to withdraw. */
  public record Request(String id, CompletableFuture<String> pod) {
    public static Request of(String id) {
      return new Request(id, new CompletableFuture<>());
    }
  }

  /** The knobs; {@link #DEFAULTS} are the Go scheduler's. */
  public record Settings(Duration reservationTtl, Duration idleNotifyDelay, Duration pollBase,
      Duration pollMax, int maxConcurrentClaims, int requestBuffer) {
    public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(2),
        Duration.ofMillis(200), Duration.ofSeconds(10), Duration.ofMinutes(5), 128, 1024);
  }

  /** Counters, each read on its own; {@code pollInterval} is zero while no poll is armed. */
  public record Stats(int outstanding, int inFlight, long claimed, long conflicts, long polls,
      long scaleUps, Duration pollInterval) {}

  private sealed interface Signal {}

  private enum Wake implements Signal { REQUEST, IDLE, CONFLICT, SLOT_FREE }

  private record Poll(long generation) implements Signal {}

  private record Recheck(String pod) implements Signal {}

  private final String pool;
  private final PodApi api;
  private final Settings settings;
  private final Clock clock;
  private final Executor claimExecutor;
  private final DelayingQueue<Signal> signals;
  private final WorkQueue<String> ready = WorkQueue.create();
  private final Cache<String, Boolean> reserved;
  private final RateLimiter<String> backoff;
  private final Queue<Request> inbox = new ConcurrentLinkedQueue<>();
  private final Deque<Request> retries = new ConcurrentLinkedDeque<>();
  private final AtomicInteger outstanding = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong polls = new AtomicLong();
  private final AtomicLong scaleUps = new AtomicLong();
  private volatile long pollIntervalNanos;
  private volatile long latestIdleNanos;
  private volatile boolean capped;
  private volatile boolean closed;
  private volatile Thread loopThread;

  // The scheduler's thread only (or the test thread that drives it with runPending).
  private final ArrayDeque<Request> waiting = new ArrayDeque<>();
  private Set<String> listed = Set.of();
  private long pollGeneration;
  private boolean pollArmed;
  private boolean starving;

  public PoolScheduler(String pool, PodApi api, Settings settings, Clock clock,
      Executor claimExecutor) {
    this.pool = pool;
    this.api = api;
    this.settings = settings;
    this.clock = clock;
    this.claimExecutor = claimExecutor;
    signals = WorkQueue.<Signal>builder().clock(clock).buildDelaying();
    reserved = Caffeine.newBuilder().expireAfterWrite(settings.reservationTtl())
        .ticker(clock::nanoTime).executor(Runnable::run).build();
    backoff = RateLimiters.exponential(settings.pollBase(), settings.pollMax());
  }

  public synchronized void start() {
    if (closed || loopThread != null) {
      throw new IllegalStateException("pool " + pool + ": started already, or shut down");
    }
    loopThread = new Thread(this::loop, "poolsched-" + pool);
    loopThread.setDaemon(true);
    loopThread.start();
  }

  /**
   * Hands {@code request} (enqueue each once) to the scheduler. False, leaving it untouched,
   * when {@code requestBuffer} requests are outstanding (not yet ended) or after shutdown.
   */
  public boolean enqueue(Request request) {
    int n;
    do {
      n = outstanding.get();
      if (closed || n >= settings.requestBuffer()) {
        return false;
      }
    } while (!outstanding.compareAndSet(n, n + 1));
    request.pod().whenComplete((pod, error) -> outstanding.decrementAndGet());
    handOver(inbox, request, Wake.REQUEST);
    return true;
  }

  /** A pod went Idle: list the idle pods once the informer cache can show it. */
  public void notifyIdle() {
    latestIdleNanos = clock.nanoTime();
    signals.addAfter(Wake.IDLE, settings.idleNotifyDelay()); // if one waits, the earlier stays
  }

  public Stats stats() {
    return new Stats(outstanding.get(), inFlight.get(), claimed.get(), conflicts.get(),
        polls.get(), scaleUps.get(), Duration.ofNanos(pollIntervalNanos));
  }

  /**
   * Stops the scheduler's thread, waiting at most {@code timeout} (true if it stopped), and
   * fails every request still waiting. A claim under way ends its request when it returns.
   */
  public synchronized boolean shutdown(Duration timeout) throws InterruptedException {
    closed = true;
    signals.shutDown();
    if (loopThread == null) {
      failAll(); // never started: the caller's thread owns the line
      return true;
    }
    loopThread.join(Math.max(1, timeout.toMillis())); // it fails what waits as it ends
    return !loopThread.isAlive();
  }

  // ---- the scheduler's thread --------------------------------------------------------------

  private void loop() {
    try {
      for (Optional<Signal> s; !closed && (s = signals.get()).isPresent(); ) {
        round(s.get());
      }
    } catch (InterruptedException e) {
      // nothing interrupts it; stop if something does
    } finally { // also if a round threw: then nothing would serve the requests
      closed = true;
      failAll();
    }
  }

  /** For tests: runs a round in the caller's thread if a wake-up is due; false if none. */
  boolean runPending() {
    if (loopThread != null) {
      throw new IllegalStateException("the scheduler's own thread runs the rounds");
    }
    Signal first = pollNow(signals);
    if (first != null && !closed) {
      round(first);
    }
    return first != null;
  }

  /** Takes the wake-ups queued now (later ones could keep it from ever acting), acts once. */
  private void round(Signal first) {
    boolean reset = false;
    boolean refresh = false;
    int more = signals.size();
    for (Signal s = first; s != null; s = more-- > 0 ? pollNow(signals) : null) {
      signals.done(s); // at once: a wake-up added from now on is queued again
      if (s instanceof Poll p) {
        if (pollArmed && p.generation() == pollGeneration) { // else reset meanwhile
          pollArmed = false;
          polls.incrementAndGet();
          refresh = true;
        }
      } else if (s instanceof Recheck) {
        refresh = true; // a conflicted pod's reservation ran out: is it idle after all?
      } else if (s == Wake.IDLE) {
        reset = refresh = true;
        long later = latestIdleNanos + settings.idleNotifyDelay().toNanos() - clock.nanoTime();
        if (later > 0) { // a notification merged into this wake-up needs a later look
          signals.addAfter(Wake.IDLE, Duration.ofNanos(later));
        }
      } else if (s != Wake.SLOT_FREE) {
        reset = true; // REQUEST, CONFLICT
      }
    }
    for (Request r; (r = retries.pollLast()) != null; ) {
      waiting.addFirst(r); // conflicted requests go back to the head of the line, in order
    }
    for (Request r; (r = inbox.poll()) != null; ) {
      waiting.addLast(r);
    }
    if (refresh) {
      refresh();
    }
    boolean starved = dispatch(refresh);
    if (reset || waiting.isEmpty()) {
      resetPoll();
    }
    if (waiting.isEmpty()) {
      starving = false;
    } else if (starved) {
      if (!pollArmed) {
        armPoll();
      }
      if (!starving) { // a new starvation episode
        starving = true;
        raiseScaleUp(waiting.size());
      }
    }
  }

  /** Hands pods to waiting requests, oldest first; true if it ran out of pods. */
  private boolean dispatch(boolean refreshed) {
    while (!waiting.isEmpty()) {
      Request r = waiting.peekFirst();
      if (r.pod().isDone()) { // withdrawn
        waiting.pollFirst();
        continue;
      }
      if (atCap()) {
        return false; // the next claim to finish wakes us
      }
      String pod = takeAndReserve();
      if (pod == null && !refreshed) {
        refresh(); // at most once a round
        refreshed = true;
        continue;
      }
      if (pod == null) {
        return true;
      }
      waiting.pollFirst();
      resetPoll(); // pods were idle after all: the poll starts over
      inFlight.incrementAndGet();
      claimExecutor.execute(() -> claim(r, pod));
    }
    return false;
  }

  private void refresh() {
    List<String> idle = api.listIdle();
    listed = new HashSet<>(idle);
    for (String pod : idle) {
      if (reserved.getIfPresent(pod) == null) {
        ready.add(pod); // a pod already queued keeps its place
      }
    }
  }

  /** The oldest ready pod that the latest listing still shows, now reserved; null if none. */
  private String takeAndReserve() {
    for (String pod; (pod = pollNow(ready)) != null; ) {
      ready.done(pod);
      if (listed.contains(pod) && reserved.asMap().putIfAbsent(pod, Boolean.TRUE) == null) {
        return pod;
      }
    }
    return null;
  }

  /** Whether the cap is reached; if so the next claim to finish sends {@code SLOT_FREE}. */
  private boolean atCap() {
    if (inFlight.get() < settings.maxConcurrentClaims()) {
      return false;
    }
    capped = true; // set before the second look: a claim finishing meanwhile sees it or is seen
    if (inFlight.get() < settings.maxConcurrentClaims()) {
      capped = false;
      return false;
    }
    return true;
  }

  private void armPoll() {
    Duration interval = backoff.when("poll"); // 10, 20, 40, 80, 160, 300, 300 s...
    pollArmed = true;
    pollIntervalNanos = interval.toNanos();
    signals.addAfter(new Poll(++pollGeneration), interval);
  }

  private void resetPoll() {
    backoff.forget("poll");
    if (pollArmed) {
      signals.cancel(new Poll(pollGeneration));
      pollArmed = false;
    }
    pollIntervalNanos = 0;
  }

  private void raiseScaleUp(int waitingNow) {
    scaleUps.incrementAndGet();
    claimExecutor.execute(() -> api.markScaleUpPending(waitingNow)); // off the scheduler's thread
  }

  // ---- claims, on the claim executor -------------------------------------------------------

  private void claim(Request r, String pod) {
    try {
      if (r.pod().isDone()) {
        reserved.invalidate(pod); // withdrawn while it waited for a thread: the pod is untouched
      } else if (api.claim(pod, r.id())) {
        r.pod().complete(pod); // (if withdrawn meanwhile, the pod stays claimed)
        claimed.incrementAndGet();
      } else { // someone else may own the pod now: it stays reserved; look again after the TTL
        conflicts.incrementAndGet();
        signals.addAfter(new Recheck(pod), settings.reservationTtl());
        handOver(retries, r, Wake.CONFLICT);
      }
    } catch (Exception e) {
      reserved.invalidate(pod);
      r.pod().completeExceptionally(e);
    } finally {
      inFlight.decrementAndGet();
      if (capped) {
        capped = false;
        signals.add(Wake.SLOT_FREE);
      }
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** Queues {@code r} for the scheduler's thread; after shutdown, fails it instead. */
  private void handOver(Queue<Request> queue, Request r, Wake wake) {
    queue.add(r);
    if (closed) {
      fail(r); // the thread may have failed what was queued just before the add
    } else {
      signals.add(wake);
    }
  }

  private void failAll() {
    for (Queue<Request> queue : List.of(waiting, retries, inbox)) {
      for (Request r; (r = queue.poll()) != null; ) {
        fail(r);
      }
    }
  }

  private void fail(Request r) {
    r.pod().completeExceptionally(new IllegalStateException("pool " + pool + ": shut down"));
  }

  private static <T> T pollNow(WorkQueue<T> queue) {
    try {
      return queue.poll(Duration.ZERO).orElse(null);
    } catch (InterruptedException e) { // poll(ZERO) never waits
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
