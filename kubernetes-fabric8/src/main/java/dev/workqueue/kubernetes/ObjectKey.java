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
 * <p><b>Which keys are checked.</b> A key made from text a user gave ({@link #parse}, {@link
 * #of(String, String)}, {@link #cluster}) is checked against Kubernetes' name rules, so that a
 * typo fails where it is made rather than as a key no object ever has: a namespace is a DNS
 * label (at most 63 characters: lowercase letters, digits and {@code -}, starting and ending
 * with a letter or digit), a name a DNS subdomain (at most 253 characters: lowercase letters,
 * digits, {@code -} and {@code .}, each {@code .}-separated part starting and ending with a
 * letter or digit), the rule of most kinds. A key of an object from the API server ({@link
 * #of(HasMetadata)}) is not: the API server has checked its name by its kind's own rule, which
 * may be another (RBAC roles allow {@code system:controller:x}). Every key has a name, and
 * neither part contains {@code /}.
 */
public final class ObjectKey implements Comparable<ObjectKey> {
  private static final Comparator<ObjectKey> ORDER =
      Comparator.comparing(ObjectKey::namespace).thenComparing(ObjectKey::name);

  private static final int MAX_NAMESPACE = 63;
  private static final int MAX_NAME = 253;

  private final String namespace;
  private final String name;

  private ObjectKey(String namespace, String name) {
    this.namespace = namespace;
    this.name = name;
  }

  /**
   * The key of an object in {@code namespace}, checked as the class comment says.
   *
   * @param namespace the namespace, a DNS label; null or empty for a cluster-scoped object
   * @param name the name, a DNS subdomain
   * @return the key
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty or no DNS subdomain, or {@code
   *     namespace} is no DNS label; the message names the argument and the rule it breaks
   */
  public static ObjectKey of(String namespace, String name) {
    Objects.requireNonNull(name, "name must not be null");
    String ns = namespace == null ? "" : namespace;
    if (!ns.isEmpty()) {
      checkDnsName("namespace", ns, MAX_NAMESPACE, false);
    }
    checkDnsName("name", name, MAX_NAME, true);
    return new ObjectKey(ns, name);
  }

  /**
   * The key of a cluster-scoped object, checked as the class comment says.
   *
   * @param name the name, a DNS subdomain
   * @return the key, with the empty namespace
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty or no DNS subdomain
   */
  public static ObjectKey cluster(String name) {
    return of("", name);
  }

  /**
   * The key of {@code object}, from its metadata. Its name is not checked against the DNS
   * rules: it comes from the API server, which checked it by its kind's rule.
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
    return fromApiServer(meta.getNamespace(), meta.getName());
  }

  /**
   * A key of names the API server gave (an object's, an owner reference's): not checked
   * against the DNS rules, only that the name is not empty and neither part has a {@code /}.
   */
  static ObjectKey fromApiServer(String namespace, String name) {
    Objects.requireNonNull(name, "name must not be null");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    if (name.indexOf('/') >= 0) {
      throw new IllegalArgumentException("name must not contain '/', was \"" + name + "\"");
    }
    String ns = namespace == null ? "" : namespace;
    if (ns.indexOf('/') >= 0) {
      throw new IllegalArgumentException("namespace must not contain '/', was \"" + ns + "\"");
    }
    return new ObjectKey(ns, name);
  }

  /**
   * Reads a key written by {@link #toString}: {@code namespace/name}, or {@code name} for a
   * cluster-scoped object; checked as the class comment says.
   *
   * @param key the text, from a user (a flag, a file, a request)
   * @return the key
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if it has more than one {@code /} or an empty part, or
   *     its namespace is no DNS label or its name no DNS subdomain; the message gives the key
   *     and names the part and the rule it breaks
   */
  public static ObjectKey parse(String key) {
    Objects.requireNonNull(key, "key must not be null");
    int slash = key.indexOf('/');
    if (slash == 0) {
      throw new IllegalArgumentException("key must not have an empty namespace before '/', was \""
          + key + "\"");
    }
    if (slash > 0 && key.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(
          "key must be namespace/name or name, was \"" + key + "\"");
    }
    try {
      return slash < 0 ? cluster(key) : of(key.substring(0, slash), key.substring(slash + 1));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (in the key \"" + key + "\")", e);
    }
  }

  /**
   * Checks a DNS label ({@code subdomain} false) or subdomain (true), as Kubernetes'
   * {@code IsDNS1123Label} and {@code IsDNS1123Subdomain}.
   */
  private static void checkDnsName(String argument, String value, int max, boolean subdomain) {
    String rule = subdomain ? "a DNS subdomain" : "a DNS label";
    if (value.isEmpty()) {
      throw new IllegalArgumentException(argument + " must not be empty");
    }
    if (value.length() > max) {
      throw new IllegalArgumentException(argument + " must be at most " + max + " characters ("
          + rule + "), was " + value.length() + ": \"" + abbreviate(value) + "\"");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!isLowerAlphanumeric(c) && c != '-' && !(subdomain && c == '.')) {
        throw new IllegalArgumentException(argument + " must be lowercase letters, digits"
            + (subdomain ? ", '-' and '.'" : " and '-'") + " (" + rule + "), was \""
            + abbreviate(value) + "\": '" + c + "' at " + i);
      }
    }
    for (int i = 0; i < value.length(); i++) {
      boolean edge = i == 0 || i == value.length() - 1
          || value.charAt(i - 1) == '.' || value.charAt(i + 1) == '.';
      if (edge && !isLowerAlphanumeric(value.charAt(i))) {
        throw new IllegalArgumentException(argument + " must start and end with a lowercase"
            + " letter or digit" + (subdomain ? ", and so must each '.'-separated part" : "")
            + " (" + rule + "), was \"" + abbreviate(value) + "\": '" + value.charAt(i)
            + "' at " + i);
      }
    }
  }

  private static boolean isLowerAlphanumeric(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }

  private static String abbreviate(String value) {
    return value.length() <= 40 ? value : value.substring(0, 37) + "...";
  }

  /**
   * The namespace.
   *
   * @return the object's namespace; empty for a cluster-scoped object, never null
   */
  public String namespace() {
    return namespace;
  }

  /**
   * The name.
   *
   * @return the object's name, never empty
   */
  public String name() {
    return name;
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

  @Override
  public boolean equals(Object o) {
    return o instanceof ObjectKey k && namespace.equals(k.namespace) && name.equals(k.name);
  }

  @Override
  public int hashCode() {
    return 31 * namespace.hashCode() + name.hashCode();
  }

  /** {@code namespace/name}, or {@code name} for a cluster-scoped object. */
  @Override
  public String toString() {
    return namespace.isEmpty() ? name : namespace + "/" + name;
  }
}
