/**
 * A per-pool claim scheduler built on the toolkit: requests for a sandbox pod are paired with
 * the pool's idle pods, each pod going to exactly one request. Run {@link
 * dev.workqueue.examples.pool.PoolClaimDemo} to watch one work against {@link
 * dev.workqueue.examples.pool.FakeApiServer}.
 *
 * <h2>The pieces</h2>
 *
 * <pre>
 *  enqueue(req) ──► inbox ──┐                         ┌──► claim thread: PodApi.claim (Idle → Starting)
 *   (false when the         │   ┌───────────────┐     │      CLAIMED  → req.result() completes
 *    buffer is full)        ├──►│ scheduler's   │─────┘      CONFLICT → req back at the head of the
 *  notifyIdle() ─ 200 ms ─► │   │ thread: one   │                       line, wake CONFLICT,
 *  poll timer (back-off) ─► │   │ round per     │                       recheck the pod at TTL
 *  conflict / claim done ─► │   │ batch of wakes│            error    → release the pod, req fails
 *  request timeout ───────► ┘   └───────┬───────┘
 *        signals: a DelayingQueue       │ refresh: PodApi.listIdle (the informer cache)
 *                                       ▼
 *                  ready pods: a WorkQueue (FIFO, one entry per pod)
 *                  reservations: Caffeine, UID → expires after the TTL
 * </pre>
 *
 * <p><b>Wake-ups are a {@code DelayingQueue<Signal>}.</b> Every reason to run a round (a
 * request arrived, a pod went idle 200 ms ago, the poll timer fired, a claim conflicted or
 * freed a slot under the cap, a request timed out, a conflicted pod's reservation ran out) is
 * an item added to it, now or after a delay. The queue's dedup is what the seed gets from
 * buffered channels of size one: a thousand enqueues queue one {@code REQUEST}. The delayed
 * items replace the seed's timers and sleeping goroutines: the poll timer is an
 * {@code addAfter} of a {@code Poll} item (a generation number makes a timer that was re-armed
 * meanwhile harmless), the idle delay an {@code addAfter} of {@code IDLE}. All of it runs on
 * the injected clock, so a test steps a {@code FakeClock} through the back-off without
 * sleeping, and no thread is started for it (the toolkit's timer pool serves every queue).
 * The scheduler's thread takes one wake-up, then the others queued when the round began (not
 * more: producers re-adding {@code REQUEST} as fast as it is taken would starve the round),
 * and acts once: at most one listing of idle pods and one dispatch pass per round.
 *
 * <p><b>The ready queue is a {@code WorkQueue<PodRef>}.</b> A refresh adds every listed pod
 * that is not reserved; a pod already queued is not added again, so it keeps the place where
 * it was first seen idle (the seed's "prefer older idle" without a scorer). Taking a pod marks
 * it done at once; the reservation, not the queue, keeps it out while its claim propagates.
 * A queued pod that the latest listing no longer shows (someone else claimed it) is dropped
 * when it comes up.
 *
 * <p><b>Reservations are a Caffeine cache with a {@code Ticker} reading the injected
 * clock.</b> The informer cache keeps listing a claimed pod as Idle until the watch event
 * arrives; the reservation (2 s) keeps the scheduler from handing it out again meanwhile. On
 * a conflict the pod keeps its reservation, since someone else may really own it now; a
 * {@code Recheck} wake-up is set for when the reservation runs out, so a pod that is idle
 * after all is taken then rather than at the next poll. On an API error the reservation is
 * released at once.
 *
 * <p><b>The poll back-off is {@code RateLimiters.exponential(10 s, 5 min)}</b> on one key:
 * each poll that finds requests waiting and no pod arms the next with {@code when} (10, 20,
 * 40, 80, 160, 300, 300 s...), and a reset is {@code forget}. The interval goes back to 10 s
 * on each of the seed's three triggers (a new request, an idle notification, a conflict) and
 * also when a round hands out a pod (the pool was not idle-less after all) or nothing waits
 * any more.
 *
 * <p><b>Starvation episodes.</b> An episode begins when a round finds requests waiting and
 * no pod, even after listing, and ends when no request waits. The scale-up signal
 * ({@link dev.workqueue.examples.pool.PodApi#markScaleUpPending}) is raised once per
 * episode, so a burst of a thousand arrivals into an empty pool writes one annotation; the
 * write runs off the scheduler's thread and never twice at once (the seed's singleflight).
 *
 * <p><b>Backpressure</b> bounds what the scheduler holds: requests accepted and not ended
 * (queued, waiting, or being claimed), default 1024. {@code enqueue} then returns false and
 * leaves the request untouched. {@link dev.workqueue.examples.pool.Snapshot} reads these
 * counters without a lock.
 *
 * <h2>Threads</h2>
 *
 * <p>{@code poolsched-<pool>-loop}, the scheduler's thread, and up to 129
 * {@code poolsched-<pool>-claim-N} threads (fewer when idle, none after an idle second),
 * unless the caller supplies the claim executor. {@code shutdown} stops all of them and fails
 * every request still waiting.
 */
package dev.workqueue.examples.pool;
