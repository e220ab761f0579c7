package dev.workqueue.kubernetes;

import dev.workqueue.controller.Controller;
import dev.workqueue.metrics.ControllerMetricsProvider;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Builds an {@link Operator}: {@code Operator.builder(client)}, then a {@link #controller}
 * call for each controller, and for all of them at most one {@link #leaderElection} or one
 * {@link #sharding} ring.
 */
public final class OperatorBuilder {
  final KubernetesClient client;
  final List<KubernetesControllerBuilder<?>> kubernetes = new ArrayList<>();
  final List<Controller<?>> plain = new ArrayList<>();
  ControllerMetricsProvider metrics = ControllerMetricsProvider.noop();
  LeaderElection election;
  Sharding sharding;

  OperatorBuilder(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client must not be null");
  }

  /**
   * Adds a Kubernetes controller, which the operator builds: it gives the builder the operator's
   * informer of each type the controller reconciles, owns or watches ({@link
   * KubernetesControllerBuilder#withInformer}; an informer set there by the caller is kept), so
   * controllers that watch one type share one informer. Do not build or reuse the builder
   * elsewhere.
   *
   * @param controller a builder made with the operator's client, without {@code
   *     leaderElection} and without {@code sharding} (the operator's are for all)
   * @return this builder
   * @throws IllegalArgumentException if the builder uses another client, elects on a Lease of
   *     its own or is sharded on a ring of its own
   */
  public OperatorBuilder controller(KubernetesControllerBuilder<?> controller) {
    Objects.requireNonNull(controller, "controller must not be null");
    if (controller.client != client) {
      throw new IllegalArgumentException("controller " + controller.name + " was built with"
          + " another client: an operator's controllers share its client");
    }
    if (controller.election != null) {
      throw new IllegalArgumentException("controller " + controller.name + " has its own"
          + " leaderElection(...): an operator elects once for all its controllers; give the"
          + " LeaderElection to Operator.builder(client).leaderElection(...) instead");
    }
    if (controller.sharding != null) {
      throw new IllegalArgumentException("controller " + controller.name + " has its own"
          + " sharding(...): an operator's controllers share one ring; give the Sharding to"
          + " Operator.builder(client).sharding(...) instead");
    }
    kubernetes.add(controller);
    return this;
  }

  /**
   * Adds a toolkit controller, started and stopped with the others: on each gain and loss of
   * the Lease with {@link #leaderElection}, else at the operator's start and stop. Nothing gates
   * its reconciles on the Lease but its stop: unlike a Kubernetes controller's, a reconcile
   * that starts in the moment between a loss and the stop is not skipped.
   *
   * @param controller a controller not started, which the operator alone starts and stops
   * @return this builder
   * @throws IllegalArgumentException if it is running
   */
  public OperatorBuilder controller(Controller<?> controller) {
    Objects.requireNonNull(controller, "controller must not be null");
    if (controller.isRunning()) {
      throw new IllegalArgumentException("controller " + controller.name() + " is running:"
          + " the operator starts it");
    }
    plain.add(controller);
    return this;
  }

  /**
   * One leader election for every controller: the workers of all of them run only while this
   * replica holds the Lease, start together on its gain and stop together on its loss.
   *
   * @param election the Lease, this replica's identity and the durations
   * @return this builder
   */
  public OperatorBuilder leaderElection(LeaderElection election) {
    this.election = Objects.requireNonNull(election, "election must not be null");
    return this;
  }

  /**
   * One shard ring for every Kubernetes controller (see {@link Sharding}): every replica works,
   * each on the keys rendezvous hashing gives it among the live members, for all its controllers
   * alike. A replica holds one Lease in the ring, not one per controller; a join, a leave or a
   * death moves the keys of every controller at once, and a key changes hands only after its
   * previous owner has ended its reconciles of it in every controller. The ring hashes the key
   * alone ({@code namespace/name}): objects of one name in one namespace go to one replica,
   * whichever controller reconciles them. Not with {@link #leaderElection}, nor with a toolkit
   * {@link #controller(Controller)}, whose keys are not objects the ring can split.
   *
   * @param sharding the ring, this replica's identity and the durations
   * @return this builder
   */
  public OperatorBuilder sharding(Sharding sharding) {
    this.sharding = Objects.requireNonNull(sharding, "sharding must not be null");
    return this;
  }

  /**
   * Where the operator reports {@code leader_election_master_status} of its Lease (1 while this
   * replica leads, else 0), or with {@link #sharding} the ring's metrics ({@code
   * workqueue_shard_members}, {@code workqueue_shard_keys_owned} and the hand-overs, counted
   * over every controller), as a lone controller does through its own provider. Without it,
   * nothing is reported.
   *
   * @param metrics the provider, such as the one the controllers use
   * @return this builder
   */
  public OperatorBuilder metricsProvider(ControllerMetricsProvider metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics must not be null");
    return this;
  }

  /**
   * Builds the operator and its controllers; nothing runs until {@link Operator#start}.
   *
   * @return the operator
   * @throws IllegalStateException if no controller was added, or two have one name, or it is
   *     sharded and elects a leader or has a toolkit controller
   */
  public Operator build() {
    if (kubernetes.isEmpty() && plain.isEmpty()) {
      throw new IllegalStateException("an operator needs at least one controller");
    }
    if (sharding != null && election != null) {
      throw new IllegalStateException("sharding(...) and leaderElection(...) exclude each other:"
          + " sharded replicas all work, each on its share of the keys");
    }
    if (sharding != null && !plain.isEmpty()) {
      throw new IllegalStateException("a sharded operator runs Kubernetes controllers only: "
          + plain.get(0).name() + "'s keys are not objects the ring can split; run it apart");
    }
    Set<String> names = new HashSet<>();
    for (String n : names()) {
      if (!names.add(n)) {
        throw new IllegalStateException("two controllers are named " + n + ": give one another"
            + " name (their metrics and threads are named after it)");
      }
    }
    return new Operator(this);
  }

  private List<String> names() {
    List<String> all = new ArrayList<>();
    kubernetes.forEach(b -> all.add(b.name));
    plain.forEach(c -> all.add(c.name()));
    return all;
  }
}
