package dev.workqueue.kubernetes;

import java.util.Map;

/**
 * Opens a span for each informer event that queues keys, around the adds it makes, so that the
 * adds carry it to the reconciles that cover them (with a controller tracer: {@code
 * ControllerBuilder.tracer}). Set with {@link KubernetesControllerBuilder#eventTracer}, or on a
 * handler with {@link EnqueueHandler#withTracer}.
 *
 * <p>This module does not depend on any tracing library: the hook takes and returns JDK types
 * only, so OpenTelemetry stays in {@code workqueue-tracing-opentelemetry}, whose {@code
 * OpenTelemetryTracing.startEvent} has this very shape: {@code .eventTracer(tracing::startEvent)}.
 * Neither module depends on the other, and no class here needs a jar a user may not have.
 *
 * <p>Called on the informer's thread (and the threads {@link EnqueueHandler} names); what it or
 * the returned handle's {@code close} throws is logged and ignored: the keys are queued anyway.
 */
@FunctionalInterface
public interface EventTracer {
  /** Attribute: the informer's notification, {@code add}, {@code update} or {@code delete}. */
  String EVENT = "k8s.event";
  /** Attribute: the object's kind. */
  String KIND = "k8s.object.kind";
  /** Attribute: the object's namespace (absent for a cluster-scoped object). */
  String NAMESPACE = "k8s.namespace.name";
  /** Attribute: the object's name. */
  String NAME = "k8s.object.name";
  /** Attribute: the object's resourceVersion. */
  String RESOURCE_VERSION = "k8s.object.resource_version";
  /**
   * A suggested annotation for a W3C {@code traceparent}, as a traced system that writes an
   * object can set it ({@link KubernetesControllerBuilder#eventTracer}).
   */
  String TRACEPARENT_ANNOTATION = "workqueue.dev/traceparent";

  /**
   * Opens the event's span, current on this thread until the handle is closed (on this thread,
   * after the event's keys are queued).
   *
   * @param name the span's name, such as {@code "ConfigMap update"}
   * @param attributes {@link #EVENT}, {@link #KIND}, {@link #NAMESPACE}, {@link #NAME}, {@link
   *     #RESOURCE_VERSION}, as far as the object has them
   * @param traceparent the object's traceparent annotation if the controller reads one and the
   *     object has it, else null: the span's remote parent
   * @return the handle that ends the span
   */
  AutoCloseable onEvent(String name, Map<String, String> attributes, String traceparent);
}
