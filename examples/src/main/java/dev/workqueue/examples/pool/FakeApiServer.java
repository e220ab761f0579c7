package dev.workqueue.examples.pool;

import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * An in-memory apiserver and informer cache for {@link PoolScheduler}: pods with a phase
 * (Idle or Starting), a claim write that is a compare-and-set on the phase, and a cache view
 * that lags the writes.
 *
 * <ul>
 *   <li><b>Informer lag</b> ({@link Builder#informerLag}, on the injected clock): after a
 *       write, {@link #listIdle} shows the pod's previous phase for that long. A claimed pod
 *       is still listed as Idle for the lag; a recycled pod is listed only after it.
 *   <li><b>Claim latency</b> ({@link Builder#claimLatency}, real time: it stands for the
 *       network): each {@link #claim} sleeps a uniformly random time in the range.
 *   <li><b>Conflicts</b>: {@link Builder#conflictOnFirstAttempt} marks a fraction of the pods
 *       created (seeded) to answer their first claim with {@link ClaimOutcome#CONFLICT};
 *       {@link #injectConflict} marks one pod. A claim of a pod that is not Idle also answers
 *       CONFLICT and is counted as {@link #unexpectedPhaseAttempts()}: the double hand-outs a
 *       scheduler should never attempt.
 *   <li><b>Errors</b>: {@link #injectFailure} makes a pod's next claim throw.
 * </ul>
 *
 * <p>Thread-safe (one lock; claims sleep outside it).
 */
public final class FakeApiServer implements PodApi {

  /** A pod's phase in this fake. */
  public enum Phase { IDLE, STARTING }

  private static final class Pod {
    final String pool;
    final PodRef ref;
    Phase phase = Phase.IDLE;
    Phase previous = Phase.IDLE;
    long changedAt;
    int conflictsLeft;
    RuntimeException failNext;
    int claims;
    String owner;

    Pod(String pool, PodRef ref, long now) {
      this.pool = pool;
      this.ref = ref;
      this.changedAt = now;
    }

    /** What the informer cache shows now. */
    Phase cached(long now, long lagNanos) {
      return now - changedAt < lagNanos ? previous : phase;
    }
  }

  private final Clock clock;
  private final long lagNanos;
  private final long minLatencyNanos;
  private final long maxLatencyNanos;
  private final double conflictFraction;
  private final Random random;
  private final Map<String, Pod> pods = new LinkedHashMap<>(); // by name, in creation order
  private final Map<String, Integer> scaleUpMarks = new HashMap<>();
  private BiConsumer<String, Integer> onScaleUp = (pool, waiting) -> { };
  private long nextUid;
  private long listCalls;
  private long claimAttempts;
  private long conflictsAnswered;
  private long unexpectedPhase;

  private FakeApiServer(Builder b) {
    this.clock = b.clock;
    this.lagNanos = b.lag.toNanos();
    this.minLatencyNanos = b.minLatency.toNanos();
    this.maxLatencyNanos = b.maxLatency.toNanos();
    this.conflictFraction = b.conflictFraction;
    this.random = new Random(b.seed);
  }

  /** A builder: no lag, no latency, no conflicts, seed 1. */
  public static Builder builder(Clock clock) {
    return new Builder(clock);
  }

  /** Settings of a {@link FakeApiServer}. */
  public static final class Builder {
    private final Clock clock;
    private Duration lag = Duration.ZERO;
    private Duration minLatency = Duration.ZERO;
    private Duration maxLatency = Duration.ZERO;
    private double conflictFraction;
    private long seed = 1;

    private Builder(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** How long the cache shows a pod's previous phase after a write (injected clock). */
    public Builder informerLag(Duration lag) {
      this.lag = nonNegative(lag, "lag");
      return this;
    }

    /** Each claim sleeps a random real time within {@code [min, max]}. */
    public Builder claimLatency(Duration min, Duration max) {
      nonNegative(min, "min");
      nonNegative(max, "max");
      if (max.compareTo(min) < 0) {
        throw new IllegalArgumentException("max must be >= min, was " + max + " < " + min);
      }
      this.minLatency = min;
      this.maxLatency = max;
      return this;
    }

    /** The fraction of pods created from now on whose first claim conflicts. */
    public Builder conflictOnFirstAttempt(double fraction) {
      if (!(fraction >= 0 && fraction <= 1)) {
        throw new IllegalArgumentException("fraction must be within [0, 1], was " + fraction);
      }
      this.conflictFraction = fraction;
      return this;
    }

    /** The seed of the random choices (conflicting pods, latencies). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public FakeApiServer build() {
      return new FakeApiServer(this);
    }

    private static Duration nonNegative(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative()) {
        throw new IllegalArgumentException(name + " must be >= 0, was " + d);
      }
      return d;
    }
  }

  // ---- setting the scene -----------------------------------------------------------------

  /** Creates {@code count} Idle pods in {@code pool}, named {@code <pool>-<n>}. */
  public synchronized List<PodRef> addIdlePods(String pool, int count) {
    Objects.requireNonNull(pool, "pool");
    if (count < 0) {
      throw new IllegalArgumentException("count must be >= 0, was " + count);
    }
    List<PodRef> added = new ArrayList<>(count);
    long now = clock.nanoTime();
    for (int i = 0; i < count; i++) {
      long uid = ++nextUid;
      PodRef ref = new PodRef(pool + "-" + uid, "uid-" + uid);
      Pod pod = new Pod(pool, ref, now - lagNanos); // created long enough ago to be cached
      if (conflictFraction > 0 && random.nextDouble() < conflictFraction) {
        pod.conflictsLeft = 1;
      }
      pods.put(ref.name(), pod);
      added.add(ref);
    }
    return added;
  }

  /** Makes the next claim of {@code podName} answer CONFLICT (once more per call). */
  public synchronized void injectConflict(String podName) {
    pod(podName).conflictsLeft++;
  }

  /** Makes the next claim of {@code podName} throw {@code error}. */
  public synchronized void injectFailure(String podName, RuntimeException error) {
    pod(podName).failNext = Objects.requireNonNull(error, "error");
  }

  /**
   * Returns a Starting pod to Idle (the sandbox ended, the pod was reset): the cache sees it
   * after the lag. The caller then tells the scheduler with {@link PoolScheduler#notifyIdle}.
   *
   * @throws IllegalStateException if the pod is Idle already
   */
  public synchronized void recycle(String podName) {
    Pod pod = pod(podName);
    if (pod.phase != Phase.STARTING) {
      throw new IllegalStateException(podName + " is " + pod.phase + ", not STARTING");
    }
    write(pod, Phase.IDLE);
    pod.owner = null;
  }

  /** Called with (pool, waiting) after each scale-up mark, under no lock of the fake. */
  public void onScaleUp(BiConsumer<String, Integer> handler) {
    Objects.requireNonNull(handler, "handler");
    synchronized (this) {
      this.onScaleUp = handler;
    }
  }

  // ---- PodApi ----------------------------------------------------------------------------

  @Override
  public synchronized List<PodRef> listIdle(String pool) {
    listCalls++;
    long now = clock.nanoTime();
    List<PodRef> idle = new ArrayList<>();
    for (Pod pod : pods.values()) {
      if (pod.pool.equals(pool) && pod.cached(now, lagNanos) == Phase.IDLE) {
        idle.add(pod.ref);
      }
    }
    return idle;
  }

  @Override
  public ClaimOutcome claim(String pool, PodRef ref, ClaimRequest request)
      throws InterruptedException {
    sleepLatency();
    synchronized (this) {
      claimAttempts++;
      Pod pod = pod(ref.name());
      if (!pod.ref.equals(ref) || !pod.pool.equals(pool)) {
        throw new IllegalArgumentException("no pod " + ref + " in pool " + pool);
      }
      RuntimeException failure = pod.failNext;
      if (failure != null) {
        pod.failNext = null;
        throw failure;
      }
      if (pod.phase != Phase.IDLE) {
        unexpectedPhase++;
        conflictsAnswered++;
        return ClaimOutcome.CONFLICT;
      }
      if (pod.conflictsLeft > 0) {
        pod.conflictsLeft--;
        conflictsAnswered++;
        return ClaimOutcome.CONFLICT;
      }
      write(pod, Phase.STARTING);
      pod.claims++;
      pod.owner = request.id();
      return ClaimOutcome.CLAIMED;
    }
  }

  @Override
  public void markScaleUpPending(String pool, int waiting) {
    BiConsumer<String, Integer> handler;
    synchronized (this) {
      scaleUpMarks.merge(pool, 1, Integer::sum);
      handler = onScaleUp;
    }
    handler.accept(pool, waiting);
  }

  // ---- what happened ---------------------------------------------------------------------

  /** The pod's phase in the apiserver (not the cache). */
  public synchronized Phase phase(String podName) {
    return pod(podName).phase;
  }

  /** Successful claims of the pod since it was created (recycling does not reset it). */
  public synchronized int claimsOf(String podName) {
    return pod(podName).claims;
  }

  /** The id of the request that holds the pod, or null if it is Idle. */
  public synchronized String ownerOf(String podName) {
    return pod(podName).owner;
  }

  /** Every pod's successful claim count, by name. */
  public synchronized Map<String, Integer> claimCounts() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    pods.forEach((name, pod) -> counts.put(name, pod.claims));
    return counts;
  }

  /** Pods created with, or given, a conflict that has not been answered yet. */
  public synchronized int pendingInjectedConflicts() {
    int n = 0;
    for (Pod pod : pods.values()) {
      n += pod.conflictsLeft;
    }
    return n;
  }

  public synchronized long listCalls() {
    return listCalls;
  }

  public synchronized long claimAttempts() {
    return claimAttempts;
  }

  /** Claims answered with CONFLICT, injected or because the pod was not Idle. */
  public synchronized long conflictsAnswered() {
    return conflictsAnswered;
  }

  /** Claims of a pod that was not Idle: a pod handed out twice. */
  public synchronized long unexpectedPhaseAttempts() {
    return unexpectedPhase;
  }

  /** Scale-up marks written for {@code pool}. */
  public synchronized int scaleUpMarks(String pool) {
    return scaleUpMarks.getOrDefault(pool, 0);
  }

  private Pod pod(String name) {
    Pod pod = pods.get(Objects.requireNonNull(name, "podName"));
    if (pod == null) {
      throw new IllegalArgumentException("no pod named " + name);
    }
    return pod;
  }

  private void write(Pod pod, Phase phase) {
    long now = clock.nanoTime();
    pod.previous = pod.cached(now, lagNanos); // what the cache showed until this write
    pod.phase = phase;
    pod.changedAt = now;
  }

  private void sleepLatency() throws InterruptedException {
    if (maxLatencyNanos == 0) {
      return;
    }
    long nanos;
    synchronized (this) {
      nanos = minLatencyNanos + (maxLatencyNanos == minLatencyNanos ? 0
          : (long) (random.nextDouble() * (maxLatencyNanos - minLatencyNanos)));
    }
    TimeUnit.NANOSECONDS.sleep(nanos);
  }
}
