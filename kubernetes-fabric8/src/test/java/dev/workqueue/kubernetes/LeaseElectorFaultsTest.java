package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Result;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The elector under the faults users met (issue #35), each replica on its own client of one
 * mock API server: a slow first call with a long start, a Lease without a spec, and a Lease
 * deleted or taken by another holder while its leader is busy.
 */
@Timeout(120)
class LeaseElectorFaultsTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration RENEW = Duration.ofSeconds(2);
  private static final Duration RETRY = Duration.ofMillis(250);
  private static final String LEASE_NAME = "copies-leader";

  private final MockApiServer server = new MockApiServer();
  private final KubernetesClient admin = server.newClient();
  private final List<AutoCloseable> toStop = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toStop) {
      c.close();
    }
    server.close();
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
}
