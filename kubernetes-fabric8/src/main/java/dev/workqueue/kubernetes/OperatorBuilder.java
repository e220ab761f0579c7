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
 * call for each controller, and at most one {@link #leaderElection} for all of them.
 */
public final class OperatorBuilder {
  final KubernetesClient client;
  final List<KubernetesControllerBuilder<?>> kubernetes = new ArrayList<>();
  final List<Controller<?>> plain = new ArrayList<>();
  ControllerMetricsProvider metrics = ControllerMetricsProvider.noop();
  LeaderElection election;

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
   *     leaderElection} (the operator's is for all) and without {@code sharding}
   * @return this builder
   * @throws IllegalArgumentException if the builder uses another client, elects on a Lease of
   *     its own or is sharded
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
      throw new IllegalArgumentException("controller " + controller.name + " has sharding(...),"
          + " which an operator does not support yet: run a sharded controller on its own");
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
   * Where the operator reports {@code leader_election_master_status} of its Lease (1 while this
   * replica leads, else 0), as a lone controller with leader election does through its own
   * provider. Without it, or without leader election, nothing is reported.
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
   * @throws IllegalStateException if no controller was added, or two have one name
   */
  public Operator build() {
    if (kubernetes.isEmpty() && plain.isEmpty()) {
      throw new IllegalStateException("an operator needs at least one controller");
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
