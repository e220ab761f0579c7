package dev.workqueue.examples;

import dev.workqueue.examples.RbacCheck.Access;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fabric8 client {@link Interceptor} that records what each request the client sends asks
 * for, as RBAC sees it ({@link RbacCheck#access}). Requests that are not for a resource are kept
 * apart, as written. Thread-safe: fabric8 calls it on its own threads.
 */
final class RecordedRequests implements Interceptor {
  private final Set<Access> accesses = ConcurrentHashMap.newKeySet();
  private final Set<String> notResources = ConcurrentHashMap.newKeySet();

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    try {
      accesses.add(RbacCheck.access(request.method(), request.uri()));
    } catch (IllegalArgumentException e) {
      notResources.add(request.method() + " " + request.uri());
    }
  }

  /** What the requests so far asked for, sorted. */
  SortedSet<Access> accesses() {
    return new TreeSet<>(accesses);
  }

  /** The requests so far that were not for a resource, sorted. */
  SortedSet<String> notResources() {
    return new TreeSet<>(notResources);
  }
}
