package dev.loadflow.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every manifest parsed as a typed Kubernetes object (an unknown field anywhere fails), and
 * the invariants on-call relies on: probes, resources, non-root, graceful termination longer
 * than a run, autoscalers that target real Deployments, alerts on metrics the services export.
 */
class ManifestsTest {

    private static final Path K8S = Path.of("k8s");
    private static final Pattern METRIC = Pattern.compile("\\b(loadflow_[a-z_]+)");
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Set<String> exported;

    /**
     * The loadflow metrics each service exports, as listed in {@code exported-metrics/}; each
     * service's health test checks that its list matches what its {@code /q/metrics} really shows.
     */
    @BeforeAll
    static void exportedMetrics() throws IOException {
        exported = new TreeSet<>();
        for (String service : List.of("load-worker", "outbox-dispatcher", "timer-pump")) {
            exported.addAll(Files.readAllLines(Path.of("src", "test", "resources", "exported-metrics", service + ".txt")));
        }
    }

    private static List<HasMetadata> typed(String overlay) throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        for (ObjectNode node : Kustomize.render(K8S.resolve("overlays").resolve(overlay))) {
            objects.add(typed(node));
        }
        return objects;
    }

    private static HasMetadata typed(ObjectNode node) {
        HasMetadata object = SERIALIZATION.unmarshal(node.toString());
        if (!(object instanceof GenericKubernetesResource)) {
            List<String> unknown = new ArrayList<>();
            unknownFields(object, object.getKind() + "/" + object.getMetadata().getName(), unknown);
            assertThat(unknown).as("fields the Kubernetes API would not know").isEmpty();
        }
        return object;
    }

    /** Walks a fabric8 model object: any field Jackson could not bind lands in additionalProperties. */
    private static void unknownFields(Object object, String path, List<String> unknown) {
        if (object == null || !object.getClass().getName().startsWith("io.fabric8")) {
            return;
        }
        for (Method getter : object.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || !getter.getName().startsWith("get") || getter.getName().equals("getClass")) {
                continue;
            }
            Object value;
            try {
                value = getter.invoke(object);
            } catch (ReflectiveOperationException e) {
                continue;
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    unknown.add(path + ": " + extra.keySet());
                }
            } else if (value instanceof Collection<?> list) {
                int i = 0;
                for (Object item : list) {
                    unknownFields(item, path + "." + getter.getName().substring(3) + "[" + i++ + "]", unknown);
                }
            } else if (value instanceof Map<?, ?> map) {
                map.forEach((k, v) -> unknownFields(v, path + "." + k, unknown));
            } else if (!(value instanceof Quantity)) {
                unknownFields(value, path + "." + getter.getName().substring(3), unknown);
            }
        }
    }

    private static <T> List<T> ofType(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static List<GenericKubernetesResource> ofKind(List<HasMetadata> objects, String kind) {
        return objects.stream().filter(o -> o instanceof GenericKubernetesResource && o.getKind().equals(kind))
                .map(GenericKubernetesResource.class::cast).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jvm", "native"})
    void everyManifestParsesAsATypedObjectWithNoUnknownField(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);

        assertThat(objects).extracting(HasMetadata::getKind).contains("Deployment", "Service", "PodDisruptionBudget",
                "Job", "ConfigMap", "NetworkPolicy", "ScaledObject", "TriggerAuthentication", "ServiceMonitor", "PrometheusRule");
        assertThat(ofType(objects, Deployment.class)).extracting(d -> d.getMetadata().getName())
                .containsExactlyInAnyOrder("load-worker", "outbox-dispatcher", "timer-pump", "ops-console");
        for (String extra : List.of("hpa.yaml")) {
            for (ObjectNode node : Kustomize.readAll(K8S.resolve("extras").resolve(extra))) {
                assertThat(typed(node).getKind()).isEqualTo("HorizontalPodAutoscaler");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jvm", "native"})
    void everyPodHasItsProbesResourcesAndRunsAsNonRootOnAReadOnlyFilesystem(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);
        List<PodSpec> pods = new ArrayList<>();
        ofType(objects, Deployment.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
        ofType(objects, Job.class).forEach(j -> pods.add(j.getSpec().getTemplate().getSpec()));

        for (PodSpec pod : pods) {
            assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
            for (Container c : pod.getContainers()) {
                assertThat(c.getImage()).as(c.getName()).endsWith(":0.1.0-" + overlay);
                assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
                assertThat(c.getResources().getLimits()).containsKey("memory");
                assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
                assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
                assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
                assertThat(c.getVolumeMounts()).extracting(m -> m.getMountPath()).contains("/tmp");
            }
        }
        for (Deployment d : ofType(objects, Deployment.class)) {
            Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
            assertThat(c.getStartupProbe().getHttpGet().getPath()).isEqualTo("/q/health/started");
            assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/q/health/live");
            assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
            for (var probe : List.of(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe())) {
                assertThat(probe.getHttpGet().getPort().getStrVal()).as("probes use the management port").isEqualTo("management");
            }
            assertThat(c.getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort())
                    .containsExactlyInAnyOrder("http:8080", "management:9000");
            assertThat(c.getResources().getLimits().get("memory"))
                    .isEqualTo(new Quantity(overlay.equals("native") ? "128Mi" : "512Mi"));
        }
    }

    @Test
    void monitoringReachesOnlyTheManagementPort() throws IOException {
        List<HasMetadata> objects = typed("jvm");
        ServiceMonitor monitor = ofType(objects, ServiceMonitor.class).get(0);
        assertThat(monitor.getSpec().getEndpoints()).extracting(e -> e.getPort() + e.getPath())
                .containsExactly("management/q/metrics");

        NetworkPolicy policy = ofType(objects, NetworkPolicy.class).stream()
                .filter(n -> n.getMetadata().getName().equals("loadflow")).findFirst().orElseThrow();
        for (var rule : policy.getSpec().getIngress()) {
            boolean fromMonitoring = rule.getFrom().stream().anyMatch(peer -> peer.getNamespaceSelector() != null);
            List<Integer> ports = rule.getPorts().stream().map(p -> p.getPort().getIntVal()).toList();
            assertThat(ports).as(fromMonitoring ? "what monitoring reaches" : "what the namespace reaches")
                    .containsExactly(fromMonitoring ? 9000 : 8080);
        }
        for (Deployment d : ofType(objects, Deployment.class)) {
            assertThat(d.getSpec().getTemplate().getSpec().getVolumes()).as(d.getMetadata().getName())
                    .extracting(v -> v.getConfigMap() == null ? "" : v.getConfigMap().getName()).contains("loadflow-jwt");
        }
    }

    @Test
    void nothingButTheIngressReachesTheConsoleAndItReachesOnlyTheAdminApisAndTheDatabase() throws IOException {
        List<HasMetadata> objects = typed("jvm");
        Map<String, NetworkPolicy> policies = ofType(objects, NetworkPolicy.class).stream()
                .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
        NetworkPolicy console = policies.get("ops-console");

        assertThat(console.getSpec().getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/name", "ops-console");
        assertThat(console.getSpec().getIngress()).extracting(rule -> rule.getFrom().getFirst().getNamespaceSelector()
                        .getMatchLabels().get("kubernetes.io/metadata.name") + ":" + rule.getPorts().getFirst().getPort().getIntVal())
                .containsExactlyInAnyOrder("ingress-nginx:8080", "monitoring:9000");
        assertThat(console.getSpec().getEgress()).extracting(rule -> rule.getPorts().stream()
                        .map(p -> p.getPort().getIntVal()).toList())
                .containsExactlyInAnyOrder(List.of(53, 53), List.of(5432), List.of(8080));
        var toApis = console.getSpec().getEgress().stream().filter(rule -> rule.getTo() != null && !rule.getTo().isEmpty())
                .findFirst().orElseThrow().getTo().getFirst().getPodSelector().getMatchExpressions().getFirst();
        assertThat(toApis.getValues()).containsExactlyInAnyOrder("load-worker", "outbox-dispatcher");
        assertThat(policies.get("loadflow").getSpec().getPodSelector().getMatchExpressions())
                .as("the services' policy, which lets the namespace in, leaves the console out")
                .anySatisfy(e -> assertThat(e.getOperator() + e.getValues()).isEqualTo("NotIn[ops-console]"));

        var ingress = ofType(objects, io.fabric8.kubernetes.api.model.networking.v1.Ingress.class).getFirst();
        assertThat(ingress.getSpec().getRules().getFirst().getHttp().getPaths().getFirst().getBackend().getService().getName())
                .isEqualTo("ops-console");
        assertThat(ingress.getSpec().getTls()).isNotEmpty();
        Deployment deployment = ofType(objects, Deployment.class).stream()
                .filter(d -> d.getMetadata().getName().equals("ops-console")).findFirst().orElseThrow();
        assertThat(deployment.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnvFrom())
                .extracting(e -> e.getSecretRef() == null ? "config:" + e.getConfigMapRef().getName() : "secret:" + e.getSecretRef().getName())
                .as("its own database login, not the services' secrets").containsExactly("config:loadflow-config",
                        "secret:loadflow-console-secrets");
    }

    @Test
    void theWorkerOutlivesARunWhenItIsStopped() throws IOException {
        Deployment worker = ofType(typed("jvm"), Deployment.class).stream()
                .filter(d -> d.getMetadata().getName().equals("load-worker")).findFirst().orElseThrow();

        long runDeadline = 120;
        assertThat(worker.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds()).isGreaterThan(runDeadline);
        assertThat(worker.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal()).isZero();
    }

    @Test
    void servicesBudgetsAndAutoscalersPointAtRealDeployments() throws IOException {
        List<HasMetadata> objects = typed("jvm");
        Map<String, Map<String, String>> podLabels = ofType(objects, Deployment.class).stream().collect(Collectors.toMap(
                d -> d.getMetadata().getName(), d -> d.getSpec().getTemplate().getMetadata().getLabels()));

        for (Service service : ofType(objects, Service.class)) {
            assertThat(podLabels.values()).as(service.getMetadata().getName())
                    .anySatisfy(labels -> assertThat(labels).containsAllEntriesOf(service.getSpec().getSelector()));
        }
        for (PodDisruptionBudget pdb : ofType(objects, PodDisruptionBudget.class)) {
            assertThat(podLabels.values()).anySatisfy(labels ->
                    assertThat(labels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels()));
        }
        List<GenericKubernetesResource> scaled = ofKind(objects, "ScaledObject");
        List<String> targets = scaled.stream()
                .map(s -> JSON.valueToTree(s.getAdditionalProperties().get("spec")).path("scaleTargetRef").path("name").asText())
                .toList();
        assertThat(targets).containsExactlyInAnyOrder("load-worker", "outbox-dispatcher");
        assertThat(podLabels).containsKeys(targets.toArray(String[]::new));
        for (GenericKubernetesResource s : scaled) {
            JsonNode spec = JSON.valueToTree(s.getAdditionalProperties().get("spec"));
            assertThat(spec.path("triggers").get(0).path("type").asText()).isEqualTo("postgresql");
            assertThat(spec.path("triggers").get(0).path("metadata").path("query").asText()).startsWith("SELECT count(*)");
            assertThat(spec.path("minReplicaCount").asInt()).isGreaterThanOrEqualTo(1);
        }
        Deployment pump = ofType(objects, Deployment.class).stream()
                .filter(d -> d.getMetadata().getName().equals("timer-pump")).findFirst().orElseThrow();
        assertThat(pump.getSpec().getReplicas()).isBetween(1, 2);
    }

    @Test
    void everyAlertHasARunbookAndNamesOnlyMetricsTheServicesExport() throws IOException {
        List<HasMetadata> objects = typed("jvm");
        PrometheusRule rules = ofType(objects, PrometheusRule.class).get(0);
        List<Rule> alerts = rules.getSpec().getGroups().stream().flatMap(g -> g.getRules().stream()).toList();
        String operations = Files.readString(Path.of("..", "docs", "operations.md"));

        assertThat(alerts).extracting(Rule::getAlert).contains("LoadflowOutboxOldestPendingRowOld",
                "LoadflowDeadRowsPerHour", "LoadflowTimerPumpLag", "LoadflowConflictRateHigh", "LoadflowQueueOldestMessageOld",
                "LoadflowLoadsHeld", "LoadflowServiceMissing", "LoadflowServiceDown");
        Set<String> named = new HashSet<>();
        for (Rule alert : alerts) {
            assertThat(alert.getAnnotations()).as(alert.getAlert()).containsKeys("summary", "description", "runbook_url");
            assertThat(alert.getLabels()).as(alert.getAlert()).containsKey("severity");
            assertThat(alert.getLabels().get("severity")).as(alert.getAlert()).isIn("critical", "warning");
            assertThat(alert.getAnnotations().get("runbook_url")).as(alert.getAlert())
                    .isEqualTo("docs/operations.md#" + alert.getAlert().toLowerCase(java.util.Locale.ROOT));
            assertThat(operations).as("the runbook of " + alert.getAlert() + " is a heading of docs/operations.md")
                    .contains("\n### " + alert.getAlert() + "\n");
            named.addAll(metrics(alert.getExpr().getStrVal()));
        }
        assertThat(named).isNotEmpty();
        assertThat(exported).as("metrics the services export").containsAll(named);
        Files.createDirectories(Path.of("target"));
        JsonNode spec = JSON.valueToTree(rules.getSpec());
        Files.writeString(Path.of("target", "prometheus-rules.yaml"), Kustomize.YAML.writeValueAsString(spec));
        for (JsonNode group : spec.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                ((ObjectNode) rule).remove("annotations");
            }
        }
        Files.writeString(Path.of("target", "prometheus-rules-without-annotations.yaml"), Kustomize.YAML.writeValueAsString(spec));
    }

    /** {@code promtool test rules} runs in .ci/run; here: every alert has a test that fires it and one that keeps it quiet. */
    @Test
    void everyAlertHasAPromtoolTestThatFiresItAndOneThatKeepsItQuiet() throws IOException {
        PrometheusRule rules = ofType(typed("jvm"), PrometheusRule.class).get(0);
        JsonNode tests = Kustomize.YAML.readTree(Path.of("src", "test", "promtool", "alerts-test.yaml").toFile());
        Set<String> fired = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (JsonNode test : tests.path("tests")) {
            for (JsonNode check : test.path("alert_rule_test")) {
                (check.path("exp_alerts").isEmpty() ? quiet : fired).add(check.path("alertname").asText());
            }
        }

        Set<String> alerts = rules.getSpec().getGroups().stream().flatMap(g -> g.getRules().stream())
                .map(Rule::getAlert).collect(Collectors.toCollection(TreeSet::new));
        assertThat(fired).as("alerts a promtool test fires").isEqualTo(alerts);
        assertThat(quiet).as("alerts a promtool test keeps quiet").isEqualTo(alerts);
    }

    @Test
    void theDashboardQueriesOnlyMetricsTheServicesExport() throws IOException {
        ObjectNode configMap = Kustomize.readAll(K8S.resolve("base").resolve("grafana-dashboard.yaml")).get(0);
        JsonNode dashboard = JSON.readTree(configMap.path("data").path("loadflow.json").asText());

        Set<String> named = new HashSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(panel.path("datasource").path("uid").asText()).as(panel.path("title").asText()).isEqualTo("${datasource}");
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                named.addAll(metrics(expr));
                assertThat(expr).as("every query of %s is scoped to the chosen namespace", panel.path("title").asText())
                        .doesNotContainPattern("\\b(loadflow_[a-z_]+|up|jvm_[a-z_]+|postgresql_[a-z_]+)(\\[|\\)|\\s|$)")
                        .contains("namespace=\"$namespace\"");
            }
        }
        assertThat(dashboard.path("templating").path("list").findValuesAsText("name")).contains("datasource", "namespace");
        assertThat(dashboard.path("panels").findValuesAsText("title")).contains("Replicas up by service",
                "Ingest requests by status", "Database pool: connections in use and waiting", "JVM heap used");
        assertThat(dashboard.path("panels")).hasSizeGreaterThanOrEqualTo(10);
        assertThat(exported).containsAll(named);
    }

    private static Set<String> metrics(String expr) {
        Set<String> names = new HashSet<>();
        Matcher m = METRIC.matcher(expr);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @ParameterizedTest
    @ValueSource(strings = {"jvm", "native"})
    void ourRenderingMatchesKubectlKustomizeWhereKubectlIsInstalled(String overlay) throws Exception {
        Path kubectl = Path.of("/usr/bin/kubectl");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(kubectl), "kubectl is not installed");
        Process process = new ProcessBuilder(kubectl.toString(), "kustomize", K8S.resolve("overlays").resolve(overlay).toString())
                .redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(out).isZero();
        Path rendered = Files.createTempFile("kustomize", ".yaml");
        Files.writeString(rendered, out);

        Set<JsonNode> theirs = new HashSet<>(Kustomize.readAll(rendered));
        Set<JsonNode> ours = new HashSet<>(Kustomize.render(K8S.resolve("overlays").resolve(overlay)));
        assertThat(ours).isEqualTo(theirs);
    }
}
