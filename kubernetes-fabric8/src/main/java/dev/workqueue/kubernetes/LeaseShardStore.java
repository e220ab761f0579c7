package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A shard ring's records as {@code coordination.k8s.io/v1} Leases, one per member, named
 * {@code <ring>.<member>} and labelled {@code workqueue.dev/ring=<ring>}. The member is the
 * Lease's holder; its view and whether it is leaving are annotations. Reads go to the API server
 * (a list by label), writes are guarded by resourceVersion (409 is a {@link Conflict}).
 */
final class LeaseShardStore implements ShardStore {
  static final String RING_LABEL = Sharding.RING_LABEL;
  static final String VIEW_ANNOTATION = "workqueue.dev/view";
  static final String LEAVING_ANNOTATION = "workqueue.dev/leaving";

  private final KubernetesClient client;
  private final String namespace;
  private final String ring;
  private final int leaseSeconds;

  LeaseShardStore(KubernetesClient client, String namespace, String ring, int leaseSeconds) {
    this.client = client;
    this.namespace = namespace;
    this.ring = ring;
    this.leaseSeconds = leaseSeconds;
  }

  @Override
  public List<Entry> list() {
    List<Entry> entries = new ArrayList<>();
    for (Lease lease : client.leases().inNamespace(namespace).withLabel(RING_LABEL, ring).list()
        .getItems()) {
      if (lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null) {
        continue;
      }
      var annotations = lease.getMetadata().getAnnotations();
      String view = annotations == null ? null : annotations.get(VIEW_ANNOTATION);
      entries.add(new Entry(lease.getSpec().getHolderIdentity(),
          lease.getMetadata().getResourceVersion(),
          view == null || view.isEmpty() ? List.of() : Arrays.asList(view.split(",")),
          annotations != null && "true".equals(annotations.get(LEAVING_ANNOTATION))));
    }
    return entries;
  }

  @Override
  public Entry write(String id, String expectedVersion, List<String> view, boolean leaving)
      throws Conflict {
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    LeaseBuilder b = new LeaseBuilder().withNewMetadata().withName(leaseName(id))
        .withNamespace(namespace).addToLabels(RING_LABEL, ring)
        .addToAnnotations(VIEW_ANNOTATION, String.join(",", view))
        .addToAnnotations(LEAVING_ANNOTATION, Boolean.toString(leaving))
        .withResourceVersion(expectedVersion).endMetadata()
        .withNewSpec().withHolderIdentity(id).withLeaseDurationSeconds(leaseSeconds)
        .withRenewTime(now).endSpec();
    try {
      var resource = client.leases().inNamespace(namespace).resource(b.build());
      Lease written = expectedVersion == null ? resource.create()
          : resource.lockResourceVersion(expectedVersion).update();
      return new Entry(id, written.getMetadata().getResourceVersion(), List.copyOf(view),
          leaving);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409 || e.getCode() == 404 && expectedVersion != null) {
        throw new Conflict(leaseName(id) + ": " + e.getMessage());
      }
      throw e;
    }
  }

  @Override
  public void delete(String id, String expectedVersion) throws Conflict {
    Lease current = client.leases().inNamespace(namespace).withName(leaseName(id)).get();
    if (current == null) {
      return;
    }
    if (!current.getMetadata().getResourceVersion().equals(expectedVersion)) {
      throw new Conflict(leaseName(id) + " is at " + current.getMetadata().getResourceVersion());
    }
    try {
      // the precondition makes the API server refuse it if a renewal came in between
      client.leases().inNamespace(namespace).resource(current)
          .lockResourceVersion(expectedVersion).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        throw new Conflict(leaseName(id) + ": " + e.getMessage());
      }
      throw e;
    }
  }

  /** {@code <ring>.<identity>}: both are DNS labels (no dot), so no two pairs share a name. */
  private String leaseName(String id) {
    return ring + "." + id;
  }
}
