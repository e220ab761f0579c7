package dev.workqueue.kubernetes.testing;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;

/** The client-side faults both servers' clients take: a partition, and a slow request. */
final class FaultInterceptors {
  /** Nothing listens on port 1: a request sent there is refused at once. */
  static final URI REFUSED = URI.create("http://127.0.0.1:1/partitioned");

  private FaultInterceptors() {}

  /** Sends each request to {@code away} while {@code partitioned} is set. */
  static Interceptor partition(AtomicBoolean partitioned, URI away) {
    Objects.requireNonNull(partitioned, "partitioned");
    return new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (partitioned.get()) {
          builder.uri(away);
        }
      }
    };
  }

  /** Holds each request for {@code delayMillis.applyAsLong(request)} ms before it is sent. */
  static Interceptor delay(ToLongFunction<HttpRequest> delayMillis) {
    Objects.requireNonNull(delayMillis, "delayMillis");
    return new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        long millis = delayMillis.applyAsLong(request);
        if (millis > 0) {
          try {
            Thread.sleep(millis); // the slowness being simulated
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller gave up on the request
          }
        }
      }
    };
  }
}
