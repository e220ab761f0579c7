package dev.workqueue.examples;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Checks the requests a controller makes against an RBAC manifest, as the API server's RBAC
 * authorizer would judge them: each request is mapped to its (verb, API group, resource,
 * namespace) by {@link #access}, and is allowed if a rule of a Role or ClusterRole bound to the
 * controller's ServiceAccount grants it there.
 *
 * <p>Deliberately small: rules with {@code resourceNames} and non-resource URLs are refused as
 * unsupported rather than judged, and aggregated ClusterRoles are not followed.
 */
final class RbacCheck {
  /**
   * One request as RBAC sees it.
   *
   * @param verb get, list, watch, create, update, patch, delete or deletecollection
   * @param group the API group, "" for the core group ({@code /api/v1})
   * @param resource the resource, with its subresource if any ({@code pods/status})
   * @param namespace the namespace, "" for a cluster-scoped request
   */
  record Access(String verb, String group, String resource, String namespace)
      implements Comparable<Access> {
    @Override
    public String toString() {
      return verb + " " + resource + (group.isEmpty() ? "" : "." + group)
          + (namespace.isEmpty() ? " (cluster-wide)" : " in " + namespace);
    }

    @Override
    public int compareTo(Access o) {
      return toString().compareTo(o.toString());
    }
  }

  /** A rule and where it applies: in {@code namespace}, or everywhere if it is null. */
  private record Grant(String namespace, PolicyRule rule) {}

  private final String manifest;
  private final String serviceAccount;
  private final List<Grant> grants;

  private RbacCheck(String manifest, String serviceAccount, List<Grant> grants) {
    this.manifest = manifest;
    this.serviceAccount = serviceAccount;
    this.grants = grants;
  }

  /**
   * Maps a request to what RBAC authorizes, as the API server's request-info resolver does:
   * {@code /api/v1/...} is the core group, {@code /apis/<group>/<version>/...} another;
   * {@code namespaces/<ns>/<resource>[/<name>[/<subresource>]]}; a GET of one object is get,
   * of a collection list, or watch with {@code watch=true}; POST create, PUT update, PATCH
   * patch, DELETE delete (deletecollection without a name).
   *
   * @throws IllegalArgumentException for a non-resource URL ({@code /version}, discovery)
   */
  static Access access(String method, URI uri) {
    List<String> parts = new ArrayList<>(
        Arrays.asList(uri.getPath().replaceAll("^/+|/+$", "").split("/+")));
    String group;
    if (parts.size() >= 3 && parts.get(0).equals("api")) {
      group = "";
      parts = parts.subList(2, parts.size());
    } else if (parts.size() >= 4 && parts.get(0).equals("apis")) {
      group = parts.get(1);
      parts = parts.subList(3, parts.size());
    } else {
      throw new IllegalArgumentException("not a resource request: " + method + " " + uri);
    }
    String namespace = "";
    if (parts.get(0).equals("namespaces") && parts.size() >= 3) {
      namespace = parts.get(1);
      parts = parts.subList(2, parts.size());
    }
    String resource = parts.get(0) + (parts.size() >= 3 ? "/" + parts.get(2) : "");
    boolean named = parts.size() >= 2;
    String query = uri.getQuery() == null ? "" : "&" + uri.getQuery() + "&";
    String verb = switch (method) {
      case "GET", "HEAD" -> named ? "get"
          : query.contains("&watch=true&") || query.contains("&watch=1&") ? "watch" : "list";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> named ? "delete" : "deletecollection";
      default -> throw new IllegalArgumentException("no verb for " + method + " " + uri);
    };
    return new Access(verb, group, resource, namespace);
  }

  /**
   * Reads {@code manifest} (YAML, documents separated by {@code ---}, or a {@code List}) and
   * keeps the rules bound to the ServiceAccount {@code namespace/name}: those of the Roles and
   * ClusterRoles its RoleBindings name (in the binding's namespace), and of the ClusterRoles its
   * ClusterRoleBindings name (everywhere).
   */
  static RbacCheck load(Path manifest, String namespace, String name) throws IOException {
    List<HasMetadata> objects;
    try (InputStream in = Files.newInputStream(manifest)) {
      Object parsed = new KubernetesSerialization().unmarshal(in);
      objects = parsed instanceof KubernetesList list ? list.getItems()
          : parsed instanceof List<?> many ? many.stream().map(HasMetadata.class::cast).toList()
          : List.of((HasMetadata) parsed);
    }
    List<Grant> grants = new ArrayList<>();
    for (HasMetadata o : objects) {
      if (o instanceof RoleBinding b && names(b.getSubjects(), namespace, name)) {
        String where = b.getMetadata().getNamespace();
        rules(objects, b.getRoleRef(), where).forEach(r -> grants.add(new Grant(where, r)));
      } else if (o instanceof ClusterRoleBinding b && names(b.getSubjects(), namespace, name)) {
        rules(objects, b.getRoleRef(), null).forEach(r -> grants.add(new Grant(null, r)));
      }
    }
    return new RbacCheck(manifest.toString(), namespace + "/" + name, grants);
  }

  /** Those of {@code observed} that no rule grants, sorted. */
  SortedSet<Access> refused(Collection<Access> observed) {
    SortedSet<Access> refused = new TreeSet<>();
    for (Access a : observed) {
      if (grants.stream().noneMatch(g -> grants(g, a))) {
        refused.add(a);
      }
    }
    return refused;
  }

  /**
   * The verbs on resources some rule grants that none of {@code observed} used, as "verb
   * resource.group": what a least-privilege manifest should not grant.
   */
  SortedSet<String> unused(Collection<Access> observed) {
    SortedSet<String> unused = new TreeSet<>();
    for (Grant g : grants) {
      for (String group : g.rule().getApiGroups()) {
        for (String resource : g.rule().getResources()) {
          for (String verb : g.rule().getVerbs()) {
            Grant one = new Grant(g.namespace(), new PolicyRule(List.of(group), List.of(),
                List.of(), List.of(resource), List.of(verb)));
            if (observed.stream().noneMatch(a -> grants(one, a))) {
              unused.add(verb + " " + resource + (group.isEmpty() ? "" : "." + group));
            }
          }
        }
      }
    }
    return unused;
  }

  /** @throws AssertionError naming each request of {@code observed} that no rule grants */
  void assertGranted(Collection<Access> observed) {
    SortedSet<Access> refused = refused(observed);
    if (!refused.isEmpty()) {
      StringBuilder m = new StringBuilder(manifest + " does not grant the ServiceAccount "
          + serviceAccount + " what the controller did:");
      refused.forEach(a -> m.append("\n  ").append(a));
      throw new AssertionError(m);
    }
  }

  private static boolean grants(Grant g, Access a) {
    PolicyRule r = g.rule();
    if (r.getResourceNames() != null && !r.getResourceNames().isEmpty()) {
      throw new IllegalArgumentException("rules with resourceNames are not supported: " + r);
    }
    return (g.namespace() == null || g.namespace().equals(a.namespace()))
        && matches(r.getApiGroups(), a.group())
        && matches(r.getResources(), a.resource())
        && matches(r.getVerbs(), a.verb());
  }

  private static boolean matches(List<String> allowed, String value) {
    return allowed != null && (allowed.contains("*") || allowed.contains(value));
  }

  private static boolean names(List<Subject> subjects, String namespace, String name) {
    return subjects != null && subjects.stream().anyMatch(s -> "ServiceAccount".equals(s.getKind())
        && name.equals(s.getName()) && namespace.equals(s.getNamespace()));
  }

  /** The rules of the role {@code ref} names: a Role of {@code namespace}, or a ClusterRole. */
  private static List<PolicyRule> rules(List<HasMetadata> objects, RoleRef ref,
      String namespace) {
    for (HasMetadata o : objects) {
      if (!o.getMetadata().getName().equals(ref.getName())) {
        continue;
      }
      if (ref.getKind().equals("Role") && o instanceof Role role
          && role.getMetadata().getNamespace().equals(namespace)) {
        return role.getRules();
      }
      if (ref.getKind().equals("ClusterRole") && o instanceof ClusterRole role) {
        if (role.getAggregationRule() != null) {
          throw new IllegalArgumentException("aggregated ClusterRoles are not supported");
        }
        return role.getRules();
      }
    }
    return List.of(); // a binding to a missing role grants nothing, as on a cluster
  }
}
