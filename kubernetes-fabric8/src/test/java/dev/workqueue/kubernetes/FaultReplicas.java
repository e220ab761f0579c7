package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;

import dev.workqueue.kubernetes.testing.ApiServer;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Replicas of a ConfigMap controller on one Lease ({@code copies-leader}), each on its own
 * client of an API server (mock or real) whose Lease calls can be slowed by a second: as when the API
 * server is busy for that replica. Stopped together.
 */
final class FaultReplicas implements AutoCloseable {
  static final long SLOW_LEASE_MILLIS = 1000;

  private final ApiServer server;
  private final Duration lease;
  private final Duration renew;
  private final Duration retry;
  private final List<Replica> replicas = new ArrayList<>();

  /** A replica: its controller, and the switch that slows its Lease calls. */
  record Replica(String id, KubernetesController<ConfigMap> controller,
      AtomicBoolean slowLeases) {}

  FaultReplicas(ApiServer server, Duration lease, Duration renew, Duration retry) {
    this.server = server;
    this.lease = lease;
    this.renew = renew;
    this.retry = retry;
  }

  /** A replica whose reconciler does nothing. */
  Replica add(String id) {
    return add(id, request -> dev.workqueue.controller.Result.success());
  }

  Replica add(String id, ObjectReconciler<ConfigMap> reconciler) {
    AtomicBoolean slow = new AtomicBoolean();
    KubernetesClient client = server.newClient(request ->
        slow.get() && MockApiServer.isLease(request) ? SLOW_LEASE_MILLIS : 0);
    KubernetesController<ConfigMap> c = KubernetesController.builder(client, ConfigMap.class)
        .name("copies")
        .inNamespace(NS)
        .reconciler(reconciler)
        .leaderElection(LeaderElection.lease(NS, "copies-leader").withIdentity(id)
            .withDurations(lease, renew, retry))
        .controller(b -> b.workers(2))
        .build();
    Replica r = new Replica(id, c, slow);
    replicas.add(r);
    return r;
  }

  List<Replica> all() {
    return List.copyOf(replicas);
  }

  List<Replica> leaders() {
    return replicas.stream().filter(r -> r.controller().isLeading()).toList();
  }

  /** The replica added after {@code r}, or the first after the last. */
  Replica after(Replica r) {
    return replicas.get((replicas.indexOf(r) + 1) % replicas.size());
  }

  /** Stops every replica; an interrupt is kept for the caller and stops none of them short. */
  @Override
  public void close() {
    boolean interrupted = Thread.interrupted(); // a pending one would cut the first stop short
    for (Replica r : replicas) {
      r.slowLeases().set(false);
      try {
        r.controller().stop(Duration.ofSeconds(5));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
