package dev.workqueue.kubernetes.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * etcd's JSON gateway on loopback (plain HTTP, as the test's etcd serves): its health, its
 * revision, and compaction. No etcdctl needed.
 */
final class EtcdGateway {
  private static final Pattern REVISION = Pattern.compile("\"revision\"\\s*:\\s*\"?(\\d+)");

  private final URI base;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  EtcdGateway(int port) {
    this.base = URI.create("http://127.0.0.1:" + port);
  }

  boolean healthy() {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve("/health"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 && r.body().contains("\"true\"");
    } catch (IOException e) {
      return false; // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The store's current revision, from the header of a count-only range over every key. */
  long revision() {
    String all = Base64.getEncoder().encodeToString(new byte[] {0});
    String body = post("/v3/kv/range",
        "{\"key\":\"" + all + "\",\"range_end\":\"" + all + "\",\"count_only\":true}");
    Matcher m = REVISION.matcher(body);
    if (!m.find()) {
      throw new IllegalStateException("etcd's range answer has no revision: " + body);
    }
    return Long.parseLong(m.group(1));
  }

  /** Compacts the history up to {@code revision}, physically (waits for it). */
  void compact(long revision) {
    post("/v3/kv/compaction", "{\"revision\":\"" + revision + "\",\"physical\":true}");
  }

  private String post(String path, String json) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(path))
          .timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("etcd " + path + " answered " + r.statusCode() + ": "
            + r.body());
      }
      return r.body();
    } catch (IOException e) {
      throw new UncheckedIOException("etcd " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted calling etcd " + path, e);
    }
  }
}
