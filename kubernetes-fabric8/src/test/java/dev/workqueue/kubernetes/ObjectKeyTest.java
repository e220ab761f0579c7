package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
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
        .getMessage().startsWith("namespace must be lowercase letters"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ObjectKey.parse("a/b/c"))
        .getMessage().startsWith("key must be namespace/name or name"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ObjectKey.parse("/c"))
        .getMessage().startsWith("key must not have an empty namespace"));
    assertEquals("name must not be empty (in the key \"ns/\")",
        assertThrows(IllegalArgumentException.class, () -> ObjectKey.parse("ns/")).getMessage());
    assertEquals("key must not be null",
        assertThrows(NullPointerException.class, () -> ObjectKey.parse(null)).getMessage());
    assertEquals("object must not be null", assertThrows(NullPointerException.class,
        () -> ObjectKey.of((ConfigMap) null)).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> ObjectKey.of(new ConfigMap())).getMessage().startsWith("object must have a name"));
  }

  private static String messageOf(Runnable call) {
    return assertThrows(IllegalArgumentException.class, call::run).getMessage();
  }

  @Test
  void parse_refusesANameThatIsNoDnsSubdomain_namingTheArgumentAndTheRule() {
    String longName = "a".repeat(300);
    assertTrue(messageOf(() -> ObjectKey.parse("ns/" + longName))
        .contains("name must be at most 253 characters (a DNS subdomain), was 300"));
    String spaced = messageOf(() -> ObjectKey.parse("ns/na me"));
    assertTrue(spaced.contains("name must be lowercase letters, digits, '-' and '.'"), spaced);
    assertTrue(spaced.contains("' ' at 2"), spaced);
    assertTrue(spaced.contains("\"ns/na me\""), "the key as given: " + spaced);
    assertTrue(messageOf(() -> ObjectKey.parse("ns/Name")).contains("'N' at 0"));
    for (String bad : List.of("-a", "a-", ".a", "a.", "a..b", "a.-b", "a-.b")) {
      String m = messageOf(() -> ObjectKey.parse("ns/" + bad));
      assertTrue(m.contains("name must start and end with a lowercase letter or digit, and so"
          + " must each '.'-separated part"), bad + ": " + m);
    }
  }

  @Test
  void parse_refusesANamespaceThatIsNoDnsLabel_namingTheArgumentAndTheRule() {
    String upper = messageOf(() -> ObjectKey.parse("NS/Na me"));
    assertTrue(upper.contains("namespace must be lowercase letters, digits and '-'"
        + " (a DNS label), was \"NS\": 'N' at 0"), upper);
    assertTrue(messageOf(() -> ObjectKey.parse("a.b/c")).contains("'.' at 1"));
    assertTrue(messageOf(() -> ObjectKey.parse("x".repeat(64) + "/c"))
        .contains("namespace must be at most 63 characters (a DNS label), was 64"));
    assertTrue(messageOf(() -> ObjectKey.parse("-ns/c"))
        .contains("namespace must start and end with a lowercase letter or digit"));
  }

  @Test
  void parse_acceptsTheLongestAndDottedNames() {
    String longest = "a".repeat(63) + "." + "b".repeat(63) + "." + "c".repeat(63) + "."
        + "d".repeat(61);
    assertEquals(253, longest.length());
    assertEquals(longest, ObjectKey.parse("ns/" + longest).name());
    assertEquals("x".repeat(63), ObjectKey.parse("x".repeat(63) + "/a").namespace());
    assertEquals(ObjectKey.of("kube-system", "coredns.v1-2"),
        ObjectKey.parse("kube-system/coredns.v1-2"));
    assertEquals(ObjectKey.cluster("0"), ObjectKey.parse("0"));
  }

  @Test
  void ofAndCluster_checkTheNamesAsParseDoes() {
    assertTrue(messageOf(() -> ObjectKey.of("ns", "Na me")).startsWith("name must be"));
    assertTrue(messageOf(() -> ObjectKey.of("NS", "a")).startsWith("namespace must be"));
    assertTrue(messageOf(() -> ObjectKey.cluster("a_b")).startsWith("name must be"));
  }

  @Test
  void aKeyFromTheApiServer_isNotChecked_forKindsWithOtherNameRules() {
    // RBAC names are path segments, not DNS subdomains: the API server has checked them.
    assertEquals("system:controller:job-controller", ObjectKey.of(new ClusterRoleBuilder()
        .withNewMetadata().withName("system:controller:job-controller").endMetadata().build())
        .name());
  }
}
