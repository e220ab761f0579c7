package dev.workqueue.kubernetes.testing;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The clients, links and black hole of one {@link RealApiServer}: each client trusts only the
 * server's self-signed certificate and authenticates with a bearer token; all are closed
 * together. Guarded by the server's lock.
 */
final class RealClients {
  private final Path certificate;
  private final String namespace;
  private final List<KubernetesClient> clients = new ArrayList<>();
  private final List<ApiServerLink> links = new ArrayList<>();
  private BlackHole blackHole;

  RealClients(Path certificate, String namespace) {
    this.certificate = certificate;
    this.namespace = namespace;
  }

  /** A client of {@code url} with {@code token}, its requests through {@code interceptor}. */
  KubernetesClient make(URI url, String token, String name, Interceptor interceptor) {
    Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url.toString())
        .withCaCertFile(certificate.toString()).withOauthToken(token)
        .withNamespace(namespace).build();
    KubernetesClientBuilder b = new KubernetesClientBuilder().withConfig(config);
    if (interceptor != null) {
      b.withHttpClientBuilderConsumer(h -> h.addOrReplaceInterceptor(name, interceptor));
    }
    KubernetesClient c = b.build();
    clients.add(c);
    return c;
  }

  ApiServerLink link(int port) {
    ApiServerLink link = new ApiServerLink(port);
    links.add(link);
    return link;
  }

  URI blackHole() {
    if (blackHole == null) {
      blackHole = new BlackHole();
    }
    return blackHole.uri();
  }

  void close() {
    clients.forEach(KubernetesClient::close);
    clients.clear();
    links.forEach(ApiServerLink::close);
    links.clear();
    if (blackHole != null) {
      blackHole.close();
    }
  }
}
