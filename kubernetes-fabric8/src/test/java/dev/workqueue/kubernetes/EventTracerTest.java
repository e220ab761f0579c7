package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An {@link EnqueueHandler} with an {@link EventTracer}: a span per event that queues keys, open
 * while they are queued, with the object's coordinates and, if asked, its traceparent annotation;
 * none for an event that queues nothing; a tracer that throws costs no key.
 */
class EventTracerTest {
  private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  record Opened(String name, Map<String, String> attributes, String traceparent) {}

  private final List<Opened> opened = new ArrayList<>();
  private final List<String> queued = new ArrayList<>();
  private String open; // the span open now, as a tracing library's current span

  private final EventTracer tracer = (name, attributes, traceparent) -> {
    opened.add(new Opened(name, attributes, traceparent));
    open = name;
    return () -> open = null;
  };

  private static ConfigMap cm(String name, String annotation) {
    ConfigMapBuilder b = new ConfigMapBuilder().withNewMetadata().withNamespace("ns")
        .withName(name).withResourceVersion("7").endMetadata();
    if (annotation != null) {
      b.editMetadata().withAnnotations(Map.of(EventTracer.TRACEPARENT_ANNOTATION, annotation))
          .endMetadata();
    }
    return b.build();
  }

  private EnqueueHandler<ConfigMap> handler(String annotation) {
    return EnqueueHandler.<ConfigMap>forObject(key -> queued.add(key + " in " + open))
        .withTracer(tracer, annotation);
  }

  @Test
  void eventThatQueues_getsASpanOpenWhileItsKeysAreQueued() {
    handler(null).onUpdate(cm("a", TRACEPARENT), cm("a", TRACEPARENT));
    assertEquals(List.of("ns/a in ConfigMap update"), queued);
    Opened o = opened.get(0);
    assertEquals(Map.of(EventTracer.EVENT, "update", EventTracer.KIND, "ConfigMap",
        EventTracer.NAMESPACE, "ns", EventTracer.NAME, "a", EventTracer.RESOURCE_VERSION, "7"),
        o.attributes());
    assertNull(o.traceparent(), "not asked to read the annotation");
    assertNull(open, "closed after the adds");
  }

  @Test
  void traceparentAnnotation_isPassedWhenAsked() {
    handler(EventTracer.TRACEPARENT_ANNOTATION).onAdd(cm("a", TRACEPARENT));
    assertEquals(TRACEPARENT, opened.get(0).traceparent());
    handler(EventTracer.TRACEPARENT_ANNOTATION).onDelete(cm("b", null), false);
    assertNull(opened.get(1).traceparent());
    assertEquals("ConfigMap delete", opened.get(1).name());
  }

  @Test
  void eventThatQueuesNothing_getsNoSpan() {
    handler(null).withFilter(new EventFilter<ConfigMap>() {
      @Override
      public boolean onAdd(ConfigMap object) {
        return false;
      }
    }).onAdd(cm("a", null));
    assertTrue(opened.isEmpty());
    assertTrue(queued.isEmpty());
  }

  @Test
  void throwingTracer_costsNoKey() {
    EnqueueHandler<ConfigMap> h = EnqueueHandler.<ConfigMap>forObject(k -> queued.add(k.toString()))
        .withTracer((name, attributes, traceparent) -> {
          throw new IllegalStateException("boom");
        }, null);
    h.onAdd(cm("a", null));
    assertEquals(List.of("ns/a"), queued);
    assertEquals(0, h.failures());
  }

  @Test
  void badArguments_areRejectedByName() {
    EnqueueHandler<ConfigMap> h = EnqueueHandler.forObject(k -> {});
    NullPointerException e = assertThrows(NullPointerException.class, () -> h.withTracer(null, null));
    assertTrue(e.getMessage().contains("tracer"), e.getMessage());
    IllegalArgumentException iae =
        assertThrows(IllegalArgumentException.class, () -> h.withTracer(tracer, ""));
    assertTrue(iae.getMessage().contains("traceparentAnnotation"), iae.getMessage());
  }
}
