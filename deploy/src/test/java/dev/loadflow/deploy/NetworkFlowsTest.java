package dev.loadflow.deploy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every flow the configuration sets up is one the NetworkPolicies let through: each endpoint a
 * service is configured to reach (the database, the OpenTelemetry collector, the channels) on
 * its port and, where the policy names one, in its namespace; DNS; the model with the LLM
 * policy; the sources' namespaces and the ingress controller to ingest (and every Ingress's
 * backend). Rendered from each overlay, as a cluster would apply it.
 */
class NetworkFlowsTest {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    /** The namespace an overlay that names none is applied to, as the policies see it (a host without a namespace lives there). */
    private static final String DEFAULT_NAMESPACE = "loadflow";
    private static final List<String> SERVICES = List.of("load-worker", "outbox-dispatcher", "timer-pump", "ops-console");

    /** An endpoint a pod is configured to reach: host's namespace (null: anywhere) and port. */
    private record Endpoint(String what, String namespace, int port) {
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "native", "sqs", "site", "small"})
    void everyConfiguredEndpointIsReachableByPolicy(String overlay) throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        for (ObjectNode node : Kustomize.render(SiteOverlay.overlay(Path.of("k8s"), overlay))) {
            objects.add(SERIALIZATION.unmarshal(node.toString()));
        }
        io.fabric8.kubernetes.api.model.ConfigMap configMap = objects.stream().filter(o -> o instanceof io.fabric8.kubernetes.api.model.ConfigMap)
                .map(io.fabric8.kubernetes.api.model.ConfigMap.class::cast)
                .filter(c -> Kustomize.unhashed(c.getMetadata().getName()).equals("loadflow-config")).findFirst().orElseThrow();
        Map<String, String> config = configMap.getData();
        String own = configMap.getMetadata().getNamespace() == null ? DEFAULT_NAMESPACE : configMap.getMetadata().getNamespace();
        List<NetworkPolicy> policies = objects.stream().filter(NetworkPolicy.class::isInstance).map(NetworkPolicy.class::cast).toList();
        Map<String, Map<String, String>> pods = new java.util.TreeMap<>();
        objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                .forEach(d -> pods.put(d.getMetadata().getName(), d.getSpec().getTemplate().getMetadata().getLabels()));
        assertThat(pods.keySet()).containsExactlyInAnyOrderElementsOf(SERVICES);

        Endpoint database = endpoint("the database", config.get("QUARKUS_DATASOURCE_REACTIVE_URL"), 5432, own);
        Endpoint collector = endpoint("the OpenTelemetry collector", config.get("QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT"), 4317, own);
        Endpoint dns = new Endpoint("DNS", "kube-system", 53);
        for (String service : SERVICES) {
            for (Endpoint endpoint : List.of(database, collector, dns)) {
                assertThat(egressAllows(policies, pods.get(service), endpoint, own))
                        .as("%s reaches %s (%s:%d) in overlay %s", service, endpoint.what(), endpoint.namespace(),
                                endpoint.port(), overlay).isTrue();
            }
        }
        config.entrySet().stream().filter(e -> e.getKey().startsWith("LOADFLOW_CHANNELS_") && e.getKey().endsWith("_URL"))
                .forEach(e -> assertThat(egressAllows(policies, pods.get("outbox-dispatcher"), endpoint(e.getKey(), e.getValue(), 80, own), own))
                        .as("the dispatcher reaches %s (%s) in overlay %s", e.getKey(), e.getValue(), overlay).isTrue());
        assertThat(egressAllows(policies, pods.get("outbox-dispatcher"), new Endpoint("a provider's API", null, 443), own))
                .as("providers' APIs over HTTPS").isTrue();
        if (config.containsKey("LOADFLOW_POLICY_LLM_BASE_URL")) {
            Endpoint model = endpoint("the model", config.get("LOADFLOW_POLICY_LLM_BASE_URL"), 80, own);
            assertThat(egressAllows(policies, pods.get("load-worker"), model, own)).as("the worker reaches its model in overlay %s", overlay).isTrue();
        }
        // the ingress controller (whose namespace the console's policy names) reaches every Ingress's backend
        String controller = policies.stream().filter(p -> p.getMetadata().getName().equals("ops-console-ingress-controller"))
                .flatMap(p -> p.getSpec().getIngress().stream()).filter(rule -> allowsPort(rule.getPorts(), 8080))
                .flatMap(rule -> rule.getFrom().stream()).map(peer -> peer.getNamespaceSelector().getMatchLabels().get("kubernetes.io/metadata.name"))
                .findFirst().orElseThrow();
        objects.stream().filter(Ingress.class::isInstance).map(Ingress.class::cast)
                .flatMap(ingress -> ingress.getSpec().getRules().stream()).flatMap(rule -> rule.getHttp().getPaths().stream())
                .forEach(path -> {
                    String service = path.getBackend().getService().getName();
                    assertThat(ingressAllows(policies, pods.get(service), Map.of("kubernetes.io/metadata.name", controller), 8080))
                            .as("the ingress controller (%s) reaches %s for %s in overlay %s", controller, service, path.getPath(), overlay)
                            .isTrue();
                });
        assertThat(ingressAllows(policies, pods.get("load-worker"), Map.of("loadflow.dev/ingest", "true",
                "kubernetes.io/metadata.name", "telematics"), 8080)).as("a source's namespace reaches ingest").isTrue();
        assertThat(ingressAllows(policies, pods.get("load-worker"), Map.of("kubernetes.io/metadata.name", "telematics"), 8080))
                .as("a namespace not labelled as a source does not").isFalse();
        assertThat(ingressAllows(policies, pods.get("outbox-dispatcher"), Map.of("loadflow.dev/ingest", "true",
                "kubernetes.io/metadata.name", "telematics"), 8080)).as("sources reach only the worker").isFalse();
    }

    /** {@code url}'s host's namespace ({@code name.namespace.svc…}; a bare name: {@code own}) and port. */
    private static Endpoint endpoint(String what, String url, int defaultPort, String own) {
        URI uri = URI.create(url.startsWith("jdbc:") ? url.substring(5) : url);
        String[] host = uri.getHost().split("\\.");
        String namespace = host.length == 1 ? own : host.length >= 3 && host[2].equals("svc") ? host[1] : null;
        int port = uri.getPort() > 0 ? uri.getPort() : uri.getScheme().equals("https") ? 443 : defaultPort;
        return new Endpoint(what, namespace, port);
    }

    /**
     * Whether the pod with {@code labels} may reach {@code endpoint}: no policy selecting it
     * limits egress, or one of their rules allows the port to a peer the endpoint can be.
     */
    private static boolean egressAllows(List<NetworkPolicy> policies, Map<String, String> labels, Endpoint endpoint, String own) {
        List<NetworkPolicy> selecting = policies.stream().filter(p -> matches(p.getSpec().getPodSelector(), labels))
                .filter(p -> p.getSpec().getPolicyTypes().contains("Egress")).toList();
        if (selecting.isEmpty()) {
            return true;
        }
        return selecting.stream().flatMap(p -> p.getSpec().getEgress().stream()).anyMatch(rule ->
                allowsPort(rule.getPorts(), endpoint.port()) && (rule.getTo() == null || rule.getTo().isEmpty()
                        || rule.getTo().stream().anyMatch(peer -> peerMayBe(peer, endpoint.namespace(), own))));
    }

    private static boolean ingressAllows(List<NetworkPolicy> policies, Map<String, String> labels,
                                         Map<String, String> fromNamespace, int port) {
        return policies.stream().filter(p -> matches(p.getSpec().getPodSelector(), labels))
                .filter(p -> p.getSpec().getPolicyTypes().contains("Ingress"))
                .flatMap(p -> p.getSpec().getIngress().stream()).anyMatch(rule -> allowsPort(rule.getPorts(), port)
                        && rule.getFrom().stream().anyMatch(peer -> peer.getNamespaceSelector() != null
                        && matches(peer.getNamespaceSelector(), fromNamespace)));
    }

    private static boolean allowsPort(List<NetworkPolicyPort> ports, int port) {
        return ports == null || ports.isEmpty() || ports.stream().anyMatch(p -> p.getPort() != null && p.getPort().getIntVal() == port);
    }

    /** Whether an endpoint in {@code namespace} (null: outside the cluster) may be the peer. */
    private static boolean peerMayBe(NetworkPolicyPeer peer, String namespace, String own) {
        if (peer.getIpBlock() != null) {
            return namespace == null;
        }
        if (namespace == null) {
            return false;
        }
        if (peer.getNamespaceSelector() == null) {
            return namespace.equals(own);
        }
        return matches(peer.getNamespaceSelector(), Map.of("kubernetes.io/metadata.name", namespace));
    }

    /** Whether {@code selector} selects a pod or namespace with {@code labels}. */
    static boolean selects(LabelSelector selector, Map<String, String> labels) {
        return matches(selector, labels);
    }

    private static boolean matches(LabelSelector selector, Map<String, String> labels) {
        if (selector.getMatchLabels() != null
                && !selector.getMatchLabels().entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
            return false;
        }
        if (selector.getMatchExpressions() != null) {
            for (var expression : selector.getMatchExpressions()) {
                String value = labels.get(expression.getKey());
                boolean ok = switch (expression.getOperator()) {
                    case "In" -> expression.getValues().contains(value);
                    case "NotIn" -> !expression.getValues().contains(value);
                    case "Exists" -> value != null;
                    case "DoesNotExist" -> value == null;
                    default -> throw new IllegalArgumentException(expression.getOperator());
                };
                if (!ok) {
                    return false;
                }
            }
        }
        return true;
    }
}
