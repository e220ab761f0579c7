package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link EnqueueHandler}'s {@link EventTracer}, and the annotation it reads a traceparent
 * from (null: none): opens the span around an event's adds, and never lets the tracer cost them.
 */
final class EventTracing {
  private static final Logger log = LoggerFactory.getLogger(EnqueueHandler.class);

  private final EventTracer tracer;
  private final String traceparentAnnotation;
  private volatile boolean warned;

  EventTracing(EventTracer tracer, String traceparentAnnotation) {
    this.tracer = tracer;
    this.traceparentAnnotation = traceparentAnnotation;
  }

  /** Runs {@code enqueue}, the adds of {@code event} on {@code object}, inside its span. */
  void around(String event, HasMetadata object, Runnable enqueue) {
    AutoCloseable span = open(event, object);
    try {
      enqueue.run();
    } finally {
      if (span != null) {
        try {
          span.close();
        } catch (Exception e) {
          failed(e);
        }
      }
    }
  }

  private AutoCloseable open(String event, HasMetadata object) {
    try {
      ObjectMeta meta = object.getMetadata();
      Map<String, String> attributes = new LinkedHashMap<>();
      attributes.put(EventTracer.EVENT, event);
      put(attributes, EventTracer.KIND, object.getKind());
      String traceparent = null;
      if (meta != null) {
        put(attributes, EventTracer.NAMESPACE, meta.getNamespace());
        put(attributes, EventTracer.NAME, meta.getName());
        put(attributes, EventTracer.RESOURCE_VERSION, meta.getResourceVersion());
        if (traceparentAnnotation != null && meta.getAnnotations() != null) {
          traceparent = meta.getAnnotations().get(traceparentAnnotation);
        }
      }
      String kind = object.getKind() == null ? "object" : object.getKind();
      return tracer.onEvent(kind + " " + event, attributes, traceparent);
    } catch (RuntimeException e) {
      failed(e);
      return null;
    }
  }

  private static void put(Map<String, String> attributes, String key, String value) {
    if (value != null && !value.isEmpty()) {
      attributes.put(key, value);
    }
  }

  private void failed(Exception e) {
    if (!warned) {
      warned = true;
      log.warn("the event tracer threw; the event's keys are queued all the same (logged once"
          + " per handler)", e);
    }
  }
}
