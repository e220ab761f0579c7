/**
 * Kubernetes controllers on the fabric8 client. {@link
 * dev.workqueue.kubernetes.KubernetesController} runs one, as controller-runtime's builder does:
 * informers for the reconciled, owned and watched types, a reconciler that gets each key with
 * the cached object, leader election on a Lease ({@link dev.workqueue.kubernetes.LeaderElection})
 * and a health report ({@link dev.workqueue.kubernetes.Health}), which {@link
 * dev.workqueue.kubernetes.ManagementServer} serves to the kubelet's probes beside a Prometheus
 * scrape. Underneath, usable on their
 * own: {@link dev.workqueue.kubernetes.ObjectKey}, the namespace/name key of an object, and
 * {@link dev.workqueue.kubernetes.EnqueueHandler}, the informer event handler that puts the keys
 * of changed objects, of their owners or of related objects on a work queue or controller,
 * filtered by {@link dev.workqueue.kubernetes.EventFilter}.
 */
package dev.workqueue.kubernetes;
