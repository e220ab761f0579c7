package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.Comparator;
import java.util.Objects;

/**
 * The key of a Kubernetes object on a work queue: its namespace and name, as client-go's
 * {@code cache.MetaNamespaceKeyFunc} and controller-runtime's {@code types.NamespacedName}. A
 * cluster-scoped object has the empty namespace. {@link #toString} gives {@code namespace/name}
 * (or {@code name} alone for a cluster-scoped object) and {@link #parse} reads it back.
 *
 * <p>Keys are values: equal when namespace and name are, ordered by namespace then name, and
 * cheap to hash, so the queue's de-duplication works on them.
 *
 * @param namespace the object's namespace; empty for a cluster-scoped object, never null
 * @param name the object's name, never empty
 */
public record ObjectKey(String namespace, String name) implements Comparable<ObjectKey> {
  private static final Comparator<ObjectKey> ORDER =
      Comparator.comparing(ObjectKey::namespace).thenComparing(ObjectKey::name);

  /**
   * A key; a null namespace is the empty one (a cluster-scoped object).
   *
   * @param namespace the namespace; null or empty for a cluster-scoped object
   * @param name the name
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty, or either part contains a
   *     {@code /}
   */
  public ObjectKey {
    Objects.requireNonNull(name, "name must not be null");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    if (name.indexOf('/') >= 0) {
      throw new IllegalArgumentException("name must not contain '/', was \"" + name + "\"");
    }
    namespace = namespace == null ? "" : namespace;
    if (namespace.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          "namespace must not contain '/', was \"" + namespace + "\"");
    }
  }

  /**
   * The key of an object in {@code namespace}.
   *
   * @param namespace the namespace; null or empty for a cluster-scoped object
   * @param name the name
   * @return the key
   */
  public static ObjectKey of(String namespace, String name) {
    return new ObjectKey(namespace, name);
  }

  /**
   * The key of a cluster-scoped object.
   *
   * @param name the name
   * @return the key, with the empty namespace
   */
  public static ObjectKey cluster(String name) {
    return new ObjectKey("", name);
  }

  /**
   * The key of {@code object}, from its metadata.
   *
   * @param object any Kubernetes object
   * @return its namespace and name
   * @throws NullPointerException if {@code object} is null
   * @throws IllegalArgumentException if it has no metadata or no name
   */
  public static ObjectKey of(HasMetadata object) {
    Objects.requireNonNull(object, "object must not be null");
    ObjectMeta meta = object.getMetadata();
    if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
      throw new IllegalArgumentException("object must have a name in its metadata: "
          + object.getKind() + " " + (meta == null ? "without metadata" : meta));
    }
    return new ObjectKey(meta.getNamespace(), meta.getName());
  }

  /**
   * Reads a key written by {@link #toString}: {@code namespace/name}, or {@code name} for a
   * cluster-scoped object.
   *
   * @param key the text
   * @return the key
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if it has more than one {@code /} or an empty part
   */
  public static ObjectKey parse(String key) {
    Objects.requireNonNull(key, "key must not be null");
    int slash = key.indexOf('/');
    if (slash < 0) {
      return cluster(key);
    }
    if (slash == 0) {
      throw new IllegalArgumentException("key must not have an empty namespace before '/', was \""
          + key + "\"");
    }
    if (key.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(
          "key must be namespace/name or name, was \"" + key + "\"");
    }
    return new ObjectKey(key.substring(0, slash), key.substring(slash + 1));
  }

  /**
   * Whether the key names a namespaced object.
   *
   * @return false for a cluster-scoped object
   */
  public boolean isNamespaced() {
    return !namespace.isEmpty();
  }

  @Override
  public int compareTo(ObjectKey o) {
    return ORDER.compare(this, o);
  }

  /** {@code namespace/name}, or {@code name} for a cluster-scoped object. */
  @Override
  public String toString() {
    return namespace.isEmpty() ? name : namespace + "/" + name;
  }
}
