/**
 * Kubernetes controllers on the fabric8 client: {@link dev.workqueue.kubernetes.ObjectKey}, the
 * namespace/name key of an object, and {@link dev.workqueue.kubernetes.EnqueueHandler}, the
 * informer event handler that puts the keys of changed objects, of their owners or of related
 * objects on a work queue or controller, filtered by {@link dev.workqueue.kubernetes.EventFilter}.
 */
package dev.workqueue.kubernetes;
