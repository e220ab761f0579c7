package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ObjectKeyTest {

  @Test
  void toStringAndParse_roundTrip() {
    for (ObjectKey k : List.of(ObjectKey.of("ns", "a"), ObjectKey.cluster("node-1"))) {
      assertEquals(k, ObjectKey.parse(k.toString()));
    }
    assertEquals("ns/a", ObjectKey.of("ns", "a").toString());
    assertEquals("node-1", ObjectKey.cluster("node-1").toString());
  }

  @Test
  void aNullNamespace_isTheEmptyOne() {
    ObjectKey k = ObjectKey.of(null, "x");
    assertEquals("", k.namespace());
    assertEquals(ObjectKey.cluster("x"), k);
    assertFalse(k.isNamespaced());
    assertTrue(ObjectKey.of("ns", "x").isNamespaced());
  }

  @Test
  void fromAnObject_namespacedOrNot() {
    ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("a").withNamespace("ns")
        .endMetadata().build();
    assertEquals(ObjectKey.of("ns", "a"), ObjectKey.of(cm));
    assertEquals(ObjectKey.cluster("team"),
        ObjectKey.of(new NamespaceBuilder().withNewMetadata().withName("team").endMetadata()
            .build()));
  }

  @Test
  void orderedByNamespaceThenName() {
    TreeSet<ObjectKey> sorted = new TreeSet<>(List.of(ObjectKey.of("b", "a"),
        ObjectKey.of("a", "z"), ObjectKey.cluster("m"), ObjectKey.of("a", "b")));
    assertEquals("[m, a/b, a/z, b/a]", sorted.toString());
  }

  @Test
  void badInput_isRefusedNamingTheArgument() {
    assertEquals("name must not be null",
        assertThrows(NullPointerException.class, () -> ObjectKey.of("ns", null)).getMessage());
    assertEquals("name must not be empty",
        assertThrows(IllegalArgumentException.class, () -> ObjectKey.of("ns", "")).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ObjectKey.of("a/b", "c"))
        .getMessage().startsWith("namespace must not contain '/'"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ObjectKey.parse("a/b/c"))
        .getMessage().startsWith("key must be namespace/name or name"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ObjectKey.parse("/c"))
        .getMessage().startsWith("key must not have an empty namespace"));
    assertEquals("name must not be empty",
        assertThrows(IllegalArgumentException.class, () -> ObjectKey.parse("ns/")).getMessage());
    assertEquals("key must not be null",
        assertThrows(NullPointerException.class, () -> ObjectKey.parse(null)).getMessage());
    assertEquals("object must not be null", assertThrows(NullPointerException.class,
        () -> ObjectKey.of((ConfigMap) null)).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> ObjectKey.of(new ConfigMap())).getMessage().startsWith("object must have a name"));
  }
}
