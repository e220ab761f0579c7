package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.testing.ApiServer;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The elector under the faults users met (issue #35), each replica on its own client of one
 * mock API server: a slow first call with a long start, a Lease without a spec, and a Lease
 * deleted or taken by another holder while its leader is busy (on a real kube-apiserver too:
 * {@link ApiServers}).
 */
@Timeout(120)
@ExtendWith(ApiServers.class)
class LeaseElectorFaultsTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration RENEW = Duration.ofSeconds(2);
  private static final Duration RETRY = Duration.ofMillis(250);
  private static final String LEASE_NAME = "copies-leader";

  private ApiServer server = new MockApiServer(); // a real one for the tests that ask: on(kind)
  private KubernetesClient admin = server.newClient();
  private final List<AutoCloseable> toStop = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toStop) {
      c.close();
    }
    server.close();
  }

  // ---- 1. a new leader must not step down because its first call was slow and its start long

  /**
   * The first Lease call takes 1.7 s (a cold client, a busy server) and the start callback 4 s
   * (starting the workers and replaying the caches), both longer than the renew deadline
   * counted the old way. Leadership must go on: the renewals run beside the start, and the
   * first renew window counts from the call's return (capped, see {@link LeaseElector}). A
   * lease of 4 s, not 3 s, so that the cap leaves room for the first renewal after a 1.7 s call.
   */
  @Test
  void aSlowFirstCallAndAStartLongerThanTheRenewDeadline_doNotEndTheLeadership()
      throws Exception {
    Duration lease = Duration.ofSeconds(4);
    Duration retry = Duration.ofMillis(500);
    Duration startTakes = RENEW.multipliedBy(2);
    AtomicBoolean armed = new AtomicBoolean();
    KubernetesClient client = server.newClient(request ->
        MockApiServer.isLease(request) && armed.compareAndSet(true, false) ? 1700 : 0);
    client.leases().inNamespace(NS).list(); // warm: only the delay makes the first call slow
    armed.set(true);

    AtomicInteger starts = new AtomicInteger();
    AtomicInteger stops = new AtomicInteger();
    AtomicBoolean startReturned = new AtomicBoolean();
    AtomicReference<String> versionAtStart = new AtomicReference<>();
    AtomicReference<String> versionAfterStart = new AtomicReference<>();
    LeaderElection config = new LeaderElection(NS, LEASE_NAME, "a", lease, RENEW, retry, null);
    LeaseElector elector = new LeaseElector(client, config, "slow-start", () -> {
      starts.incrementAndGet();
      versionAtStart.set(version());
      try {
        Thread.sleep(startTakes.toMillis()); // the slow start being simulated
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      versionAfterStart.set(version());
      startReturned.set(true);
    }, stops::incrementAndGet);
    toStop.add(() -> elector.stop(false));
    elector.start();

    await().atMost(Duration.ofSeconds(30)).untilTrue(startReturned);
    String after = versionAfterStart.get();
    // A write of the Lease after the start returned: a renewal, or (the defect) the re-take
    // that follows a step-down, which reports the end first.
    await().atMost(Duration.ofSeconds(10)).until(() -> !after.equals(version()));
    assertEquals(0, stops.get(), "leadership ended: the stop callback ran");
    assertEquals(1, starts.get(), "leadership was taken once");
    assertNotEquals(versionAtStart.get(), after, "renewed while the start callback ran");
    assertTrue(elector.isLeading());
  }

  /** The worked example of {@link LeaseElector}'s comment, and its bound on a grid of calls. */
  @Test
  void theRenewDeadline_countsFromTheReturn_cappedSoTheWorkersKeepHalfTheMargin() {
    LeaderElection defaults = LeaderElection.lease(NS, LEASE_NAME); // 15 s, 10 s, 2 s
    long s = -5_000_000_000L; // near zero and below it: nanoTime values may be negative
    long sec = 1_000_000_000L;
    assertEquals(s + 11 * sec, LeaseElector.deadlineAfter(s, s + sec, defaults));
    assertEquals(s + 12_500_000_000L, LeaseElector.deadlineAfter(s, s + 2_500_000_000L, defaults));
    assertEquals(s + 12_500_000_000L, LeaseElector.deadlineAfter(s, s + 4 * sec, defaults));
    long near = Long.MAX_VALUE - sec; // wraps: compared by difference
    assertEquals(near + 11 * sec, LeaseElector.deadlineAfter(near, near + sec, defaults));

    long lease = defaults.leaseDuration().toNanos();
    long margin = (lease - defaults.renewDeadline().toNanos()) / 2;
    for (long took = 0; took < defaults.renewDeadline().toNanos(); took += 100_000_000L) {
      long d = LeaseElector.deadlineAfter(s, s + took, defaults);
      assertTrue(d + margin <= s + lease, "the workers stop before another can take it");
      assertTrue(d - (s + took) >= margin, "a take leaves at least the margin to renew");
    }
  }

  private String version() {
    Lease l = admin.leases().inNamespace(NS).withName(LEASE_NAME).get();
    return l == null ? "none" : l.getMetadata().getResourceVersion();
  }

  // ---- 2. a Lease without a spec (or without a holder) is free

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"no spec", "a spec without a holder"})
  void aLeaseWithoutSpecOrHolder_isTakenAtOnce(String which) throws Exception {
    LeaseBuilder bare = new LeaseBuilder().withNewMetadata().withName(LEASE_NAME)
        .withNamespace(NS).endMetadata();
    if (which.equals("a spec without a holder")) {
      bare.withNewSpec().withLeaseDurationSeconds(3600).endSpec();
    }
    admin.leases().inNamespace(NS).resource(bare.build()).create();
    FaultReplicas replicas = new FaultReplicas(server, LEASE, RENEW, RETRY);
    toStop.add(replicas);
    FaultReplicas.Replica a = replicas.add("a");
    a.controller().start();

    // A couple of retry periods; the rest is slack for a loaded machine.
    await().atMost(Duration.ofSeconds(10)).until(() -> a.controller().isLeading());
    Lease taken = admin.leases().inNamespace(NS).withName(LEASE_NAME).get();
    assertEquals("a", taken.getSpec().getHolderIdentity());
    assertEquals((int) LEASE.toSeconds(), taken.getSpec().getLeaseDurationSeconds());
  }

  // ---- 3. a Lease deleted or taken while its leader reconciles: no two leaders

  /**
   * Three replicas reconciling slow keys without pause; while one leads, the Lease is deleted,
   * or its holder is overwritten with another replica's identity. That replica, or the first to
   * create the Lease again, leads next. Once the new leader started a reconcile, the old one
   * must start none. The old leader's Lease calls are slowed by a second from the fault on (a
   * busy API server: renewals still fit in the renew deadline), so that a loss seen only at a
   * renewal comes after the new leader started; its watch is not slowed. Several hand-overs
   * per case, each leader in turn.
   */
  static Stream<Arguments> leaseFaults() {
    return Stream.of(ApiServers.Kind.values()).flatMap(kind -> Stream.of(
        Arguments.of(kind, "deleted"), Arguments.of(kind, "taken")));
  }

  @ParameterizedTest(name = "{0} server: the Lease {1}")
  @MethodSource("leaseFaults")
  @Tag(ApiServers.TAG)
  void aLeaseDeletedOrTakenWhileLeading_stopsTheOldLeaderBeforeTheNewOneReconciles(
      ApiServers.Kind kind, String fault) throws Exception {
    on(kind);
    for (int i = 0; i < 6; i++) {
      admin.configMaps().inNamespace(NS).resource(SecretCopies.source("cm-" + i, "v1")).create();
    }
    FaultReplicas replicas = new FaultReplicas(server, LEASE, RENEW, RETRY);
    toStop.add(replicas);
    ReconcileTimeline timeline = new ReconcileTimeline();
    for (String id : List.of("a", "b", "c")) {
      replicas.add(id, request -> {
        timeline.started(id);
        try {
          Thread.sleep(30); // a slow reconcile; it ends when its worker is interrupted
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Result.success();
        }
        return Result.requeueAfter(Duration.ofMillis(10)); // keeps the leader busy
      });
    }
    for (FaultReplicas.Replica r : replicas.all()) {
      r.controller().start();
    }

    for (int run = 0; run < 3; run++) {
      await().atMost(Duration.ofSeconds(30)).until(() -> replicas.leaders().size() == 1);
      FaultReplicas.Replica old = replicas.leaders().get(0);
      int busy = timeline.mark();
      await().atMost(Duration.ofSeconds(10)).until(() -> timeline.startedSince(busy, old.id()));

      int mark = timeline.mark();
      old.slowLeases().set(true);
      if (fault.equals("deleted")) {
        admin.leases().inNamespace(NS).withName(LEASE_NAME).delete();
      } else {
        overwriteHolder(replicas.after(old).id());
      }

      await().atMost(Duration.ofSeconds(15)).until(() -> timeline.anotherStartedSince(mark,
          old.id()));
      // The old leader's workers are stopped: it can start nothing more in this run.
      await().atMost(Duration.ofSeconds(15)).until(() -> !old.controller().isLeading()
          && !old.controller().controller().isRunning());
      assertEquals(List.of(), timeline.overlapping(mark, old.id()),
          "run " + run + ": " + old.id() + " reconciled after the new leader began");
      old.slowLeases().set(false);
    }
  }

  /** Runs the test on a server of {@code kind}: the mock made for every test, or a real one. */
  private void on(ApiServers.Kind kind) {
    ApiServer mock = server;
    server = ApiServers.on(kind, mock, NS);
    admin = server == mock ? admin : server.newClient();
  }

  /** The admin writes another holder into the Lease, again if a renewal came in between. */
  private void overwriteHolder(String holder) {
    for (int attempt = 1; ; attempt++) {
      try {
        admin.leases().inNamespace(NS).withName(LEASE_NAME).edit(l -> new LeaseBuilder(l)
            .editSpec().withHolderIdentity(holder).endSpec().build());
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 20) {
          throw e;
        }
      }
    }
  }
}
