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
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every variant (the overlays plain, jvm, native and sqs, and the base alone) parsed as typed
 * Kubernetes objects (an unknown field anywhere fails), and the invariants on-call relies on:
 * probes, resources, non-root, graceful termination longer than a run and a drain, spread over
 * zones, autoscalers that reach the database and target real Deployments, a migration Job per
 * release, the SQS mode complete, alerts on metrics the services export.
 */
class ManifestsTest {

    private static final Path K8S = Path.of("k8s");
    private static final List<String> OVERLAYS = List.of("plain", "jvm", "native", "sqs", "site", "small");
    /** The API groups of a cluster with nothing installed. */
    private static final Set<String> BUILT_IN = Set.of("v1", "apps/v1", "batch/v1", "policy/v1", "networking.k8s.io/v1",
            "autoscaling/v2");
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
        return typed(SiteOverlay.overlay(K8S, overlay));
    }

    private static List<HasMetadata> typed(Path kustomization) throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        for (ObjectNode node : Kustomize.render(kustomization)) {
            objects.add(typed(node));
        }
        return objects;
    }

    /** The image tag an overlay deploys: the newest release's (the CHANGELOG's first version heading). */
    private static String tag(String overlay) throws IOException {
        return newestRelease() + (overlay.equals("native") ? "-native" : "-jvm");
    }

    private static String newestRelease() throws IOException {
        return Releases.newestRelease(Path.of(".."));
    }

    /**
     * Every overlay deploys the newest release, and a release commit is that release: its root
     * pom's version is the CHANGELOG's newest, so the images it builds are the ones its overlays
     * pin. Between releases the pom carries the next -SNAPSHOT and the overlays the last release.
     */
    @Test
    void theOverlaysDeployTheNewestReleaseAndAReleaseCommitIsThatRelease() throws IOException {
        String version = Releases.pomVersion(Path.of(".."));
        if (!version.endsWith("-SNAPSHOT")) {
            assertThat(version).as("a release commit's version, in the CHANGELOG's newest section").isEqualTo(newestRelease());
        } else {
            assertThat(Files.readString(Path.of("..", "CHANGELOG.md"))).as("the changes since the last release")
                    .contains("## Unreleased");
        }
        for (String overlay : OVERLAYS) {
            String expected = ":" + tag(overlay);
            assertThat(ofType(typed(overlay), Deployment.class)).as(overlay).allSatisfy(d ->
                    assertThat(d.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage()).endsWith(expected));
        }
    }

    private static Deployment deployment(List<HasMetadata> objects, String name) {
        return ofType(objects, Deployment.class).stream().filter(d -> d.getMetadata().getName().equals(name))
                .findFirst().orElseThrow();
    }

    private static Map<String, String> config(List<HasMetadata> objects) {
        return ofType(objects, io.fabric8.kubernetes.api.model.ConfigMap.class).stream()
                .filter(c -> Kustomize.unhashed(c.getMetadata().getName()).equals("loadflow-config")).findFirst().orElseThrow().getData();
    }

    private static JsonNode spec(GenericKubernetesResource resource) {
        return JSON.valueToTree(resource.getAdditionalProperties().get("spec"));
    }

    private static GenericKubernetesResource named(List<GenericKubernetesResource> resources, String name) {
        return resources.stream().filter(r -> r.getMetadata().getName().equals(name)).findFirst().orElseThrow();
    }

    /** The name of the object of this kind the overlay renders as {@code name} (with a generator's hash, if it has one). */
    private static String named(List<HasMetadata> objects, String kind, String name) {
        return objects.stream().filter(o -> o.getKind().equals(kind) && Kustomize.unhashed(o.getMetadata().getName()).equals(name))
                .map(o -> o.getMetadata().getName()).findFirst().orElseThrow();
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
    @ValueSource(strings = {"plain", "jvm", "native", "sqs", "site", "small"})
    void everyManifestParsesAsATypedObjectWithNoUnknownField(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);

        assertThat(objects).extracting(HasMetadata::getKind).contains("Deployment", "Service", "PodDisruptionBudget",
                "Job", "ConfigMap", "NetworkPolicy");
        assertThat(ofType(objects, Deployment.class)).extracting(d -> d.getMetadata().getName())
                .containsExactlyInAnyOrder("load-worker", "outbox-dispatcher", "timer-pump", "ops-console");
        if (overlay.equals("plain") || overlay.equals("small")) {
            assertThat(objects).as("a plain cluster knows every kind").allSatisfy(o -> assertThat(o.getApiVersion()).isIn(BUILT_IN));
            assertThat(objects).extracting(HasMetadata::getKind).contains("HorizontalPodAutoscaler");
        } else {
            assertThat(objects).extracting(HasMetadata::getKind).contains("ScaledObject", "TriggerAuthentication",
                    "ServiceMonitor", "PrometheusRule").doesNotContain("HorizontalPodAutoscaler");
        }
    }

    @Test
    void theBaseAloneAppliesOnAClusterWithNothingInstalled() throws IOException {
        List<HasMetadata> objects = typed(K8S.resolve("base"));
        assertThat(objects).allSatisfy(o -> assertThat(o.getApiVersion()).as(o.getKind()).isIn(BUILT_IN));
        assertThat(ofType(objects, Deployment.class)).hasSize(4);
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "native", "sqs", "site", "small"})
    void everyPodHasItsProbesResourcesAndRunsAsNonRootOnAReadOnlyFilesystem(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);
        List<PodSpec> pods = new ArrayList<>();
        ofType(objects, Deployment.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
        ofType(objects, Job.class).forEach(j -> pods.add(j.getSpec().getTemplate().getSpec()));

        for (PodSpec pod : pods) {
            assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
            for (Container c : pod.getContainers()) {
                assertThat(c.getImage()).as(c.getName()).endsWith(":" + tag(overlay));
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
                assertThat(probe.getTimeoutSeconds()).as("no probe times out at the 1 s default").isGreaterThanOrEqualTo(5);
            }
            assertThat(c.getReadinessProbe().getTimeoutSeconds())
                    .as("readiness waits longer than its checks' own limit (a database login gives up after 8 s)")
                    .isGreaterThan(8);
            assertThat(c.getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort())
                    .containsExactlyInAnyOrder("http:8080", "management:9000");
            if (overlay.equals("native")) {
                assertThat(c.getResources().getLimits().get("memory")).isEqualTo(new Quantity("128Mi"));
            }
            if (c.getEnv().stream().anyMatch(e -> e.getName().equals("LOADFLOW_CPUS"))) {
                assertThat(c.getResources().getLimits()).as(c.getName() + ": the CPU count it reads is its limit's, not the node's")
                        .containsKey("cpu");
            }
        }
    }

    @Test
    void monitoringReachesOnlyTheManagementPort() throws IOException {
        List<HasMetadata> objects = typed("jvm");
        ServiceMonitor monitor = ofType(objects, ServiceMonitor.class).get(0);
        assertThat(monitor.getSpec().getEndpoints()).extracting(e -> e.getPort() + e.getPath())
                .containsExactly("management/q/metrics");

        Map<String, NetworkPolicy> policies = ofType(objects, NetworkPolicy.class).stream()
                .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
        assertThat(policies.get("loadflow").getSpec().getIngress()).as("what the namespace reaches")
                .allSatisfy(rule -> assertThat(rule.getFrom()).allSatisfy(peer -> assertThat(peer.getNamespaceSelector()).isNull()))
                .flatExtracting(rule -> rule.getPorts().stream().map(p -> p.getPort().getIntVal()).toList()).containsExactly(8080);
        assertThat(policies.get("loadflow-monitoring").getSpec().getIngress()).as("what monitoring reaches")
                .flatExtracting(rule -> rule.getPorts().stream().map(p -> p.getPort().getIntVal()).toList()).containsExactly(9000);
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
        Map<String, String> consolePod = Map.of("app.kubernetes.io/name", "ops-console", "app.kubernetes.io/part-of", "loadflow");
        List<NetworkPolicy> onConsole = policies.values().stream().filter(p -> NetworkFlowsTest.selects(p.getSpec().getPodSelector(), consolePod)).toList();

        assertThat(console.getSpec().getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/name", "ops-console");
        assertThat(onConsole).flatExtracting(p -> p.getSpec().getIngress()).extracting(rule -> rule.getFrom().getFirst().getNamespaceSelector()
                        .getMatchLabels().get("kubernetes.io/metadata.name") + ":" + rule.getPorts().getFirst().getPort().getIntVal())
                .containsExactlyInAnyOrder("ingress-nginx:8080", "monitoring:9000");
        assertThat(onConsole).flatExtracting(p -> p.getSpec().getEgress()).extracting(rule -> rule.getPorts().stream()
                        .map(p -> p.getPort().getIntVal()).toList())
                .containsExactlyInAnyOrder(List.of(53, 53), List.of(5432), List.of(4317), List.of(8080));
        var toApis = console.getSpec().getEgress().stream()
                .filter(rule -> rule.getPorts().getFirst().getPort().getIntVal() == 8080)
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
                .extracting(e -> e.getSecretRef() == null ? "config:" + Kustomize.unhashed(e.getConfigMapRef().getName()) : "secret:" + Kustomize.unhashed(e.getSecretRef().getName()))
                .as("its own database login, not the services' secrets").containsExactly("config:loadflow-config",
                        "secret:loadflow-console-secrets", "config:ops-console-pools");
    }

    /**
     * The ingest Ingress publishes only what sources and Twilio post: a load's events and Twilio's
     * two webhooks, never a load's view, the admin API or the management paths.
     */
    @Test
    void theIngestIngressPublishesOnlyTheIngestPaths() throws IOException {
        var ingress = ofType(typed("site"), io.fabric8.kubernetes.api.model.networking.v1.Ingress.class).stream()
                .filter(i -> i.getMetadata().getName().endsWith("load-worker-ingest")).findFirst().orElseThrow();
        List<java.util.regex.Pattern> routes = ingress.getSpec().getRules().stream()
                .flatMap(rule -> rule.getHttp().getPaths().stream())
                .map(path -> java.util.regex.Pattern.compile("^" + ("Exact".equals(path.getPathType())
                        ? java.util.regex.Pattern.quote(path.getPath()) + "$" : path.getPath())))
                .toList();
        java.util.function.Predicate<String> published = url -> routes.stream().anyMatch(route -> route.matcher(url).find());

        assertThat(ingress.getMetadata().getAnnotations()).containsEntry("nginx.ingress.kubernetes.io/use-regex", "true");
        assertThat(List.of("/loads/481207/events", "/sources/twilio/sms", "/sources/twilio/status")).allMatch(published);
        assertThat(List.of("/loads/481207", "/loads/481207/events/x", "/admin/outbox/dead", "/q/health/ready",
                "/sources/twilio/sms/x", "/loads/a/b/events")).noneMatch(published);
    }

    /**
     * The site reaches its managed database over TLS only, the server's certificate and name
     * verified against the site's authority, which every pod that connects mounts.
     */
    @Test
    void theSiteReachesTheDatabaseOverVerifiedTls() throws IOException {
        List<HasMetadata> objects = typed("site");
        Map<String, String> config = config(objects);
        assertThat(config).containsEntry("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE", "verify-full")
                .containsEntry("QUARKUS_DATASOURCE_REACTIVE_HOSTNAME_VERIFICATION_ALGORITHM", "HTTPS")
                .containsEntry("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM", "true")
                .containsEntry("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS", "/etc/loadflow/db-ca/ca.crt");
        assertThat(config.get("QUARKUS_DATASOURCE_JDBC_URL")).contains("sslmode=verify-full")
                .contains("sslrootcert=/etc/loadflow/db-ca/ca.crt");
        List<PodSpec> pods = new ArrayList<>();
        ofType(objects, Deployment.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
        ofType(objects, Job.class).forEach(j -> pods.add(j.getSpec().getTemplate().getSpec()));
        String authority = named(objects, "ConfigMap", "loadflow-db-ca");
        assertThat(authority).as("generated by the site overlay, a hash in its name").isNotEqualTo("loadflow-db-ca");
        assertThat(pods).hasSize(5).allSatisfy(pod -> {
            assertThat(pod.getVolumes()).filteredOn(v -> v.getConfigMap() != null)
                    .extracting(v -> v.getConfigMap().getName()).contains(authority);
            assertThat(pod.getContainers().getFirst().getVolumeMounts())
                    .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/loadflow/db-ca"));
        });
    }

    /**
     * The shipped sources own only what they post: telematics pings, the TMS assignments (for the
     * clients a site names), the SMS gateway SMS; each is paced.
     */
    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "native", "sqs", "site", "small"})
    void theShippedSourcesOwnOnlyWhatTheyPost(String overlay) throws IOException {
        Deployment worker = ofType(typed(overlay), Deployment.class).stream()
                .filter(d -> d.getMetadata().getName().endsWith("load-worker")).findFirst().orElseThrow();
        Map<String, String> env = worker.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
                .filter(e -> e.getValue() != null).collect(Collectors.toMap(e -> e.getName(), e -> e.getValue()));

        assertThat(env).containsEntry("LOADFLOW_INGEST_SOURCES_TELEMATICS_EVENT_TYPES", "LocationPing")
                .containsEntry("LOADFLOW_INGEST_SOURCES_TMS_EVENT_TYPES", "LoadAssigned")
                .containsEntry("LOADFLOW_INGEST_SOURCES_SMSGATEWAY_EVENT_TYPES", "InboundSms")
                .containsKeys("LOADFLOW_INGEST_SOURCES_TELEMATICS_RATE", "LOADFLOW_INGEST_SOURCES_TMS_RATE",
                        "LOADFLOW_INGEST_SOURCES_SMSGATEWAY_RATE")
                .doesNotContainKeys("LOADFLOW_INGEST_SOURCES_TELEMATICS_CLIENTS", "LOADFLOW_INGEST_SOURCES_SMSGATEWAY_CLIENTS",
                        "LOADFLOW_INGEST_TOKENS");
        if (overlay.equals("site")) {
            assertThat(env).containsEntry("LOADFLOW_INGEST_SOURCES_TMS_CLIENTS", "acme-foods,acme-retail");
        }
    }

    /**
     * Each Secret reaches only the pods that need it: the ingest tokens (and Twilio's inbound auth
     * token) the worker, the providers' credentials the dispatcher, the owner's login the Job.
     */
    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "native", "sqs", "site", "small"})
    void eachSecretGoesOnlyToThePodsThatNeedIt(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);
        // the site overlay generates them under the same names, each with its content's hash
        String services = "loadflow-secrets";
        String ingest = "loadflow-ingest-tokens";
        String owner = "loadflow-migrate-secrets";
        String providers = "loadflow-dispatcher-secrets";
        String retention = "loadflow-retention-secrets";
        Map<String, List<String>> secrets = new TreeMap<>();
        ofType(objects, Deployment.class).forEach(d -> secrets.put(d.getMetadata().getName(), secretsOf(d.getSpec().getTemplate().getSpec())));
        ofType(objects, Job.class).forEach(j -> secrets.put("job", secretsOf(j.getSpec().getTemplate().getSpec())));

        assertThat(secrets.get("load-worker")).contains(services, ingest, retention).doesNotContain(providers);
        assertThat(secrets.get("outbox-dispatcher")).contains(services, providers, retention).doesNotContain(ingest);
        assertThat(secrets.get("timer-pump")).contains(services).doesNotContain(ingest, providers, retention);
        assertThat(secrets.get("ops-console")).doesNotContain(services, ingest, providers, retention);
        assertThat(secrets.get("job")).as("the migrations run as the schema's owner, and nothing else runs with it")
                .containsExactly(owner);
        assertThat(secrets).allSatisfy((pod, names) -> {
            if (!pod.equals("job")) {
                assertThat(names).as(pod).doesNotContain(owner);
            }
        });
        assertThat(config(objects)).containsEntry("MP_JWT_VERIFY_AUDIENCES", "loadflow");
    }

    private static List<String> secretsOf(PodSpec pod) {
        return pod.getContainers().stream().flatMap(c -> c.getEnvFrom().stream())
                .filter(e -> e.getSecretRef() != null).map(e -> Kustomize.unhashed(e.getSecretRef().getName())).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "native", "sqs", "site", "small"})
    void everyDeploymentSpreadsOverZonesAndNodesAndDrainsBeforeItStops(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);
        Duration shutdown = Duration.parse(config(objects).get("QUARKUS_SHUTDOWN_TIMEOUT"));

        for (Deployment d : ofType(objects, Deployment.class)) {
            String name = d.getMetadata().getName();
            PodSpec pod = d.getSpec().getTemplate().getSpec();
            assertThat(pod.getTopologySpreadConstraints()).as(name)
                    .extracting(t -> t.getTopologyKey() + ":" + t.getWhenUnsatisfiable() + ":"
                            + t.getLabelSelector().getMatchLabels().get("app.kubernetes.io/name"))
                    .containsExactlyInAnyOrder("topology.kubernetes.io/zone:ScheduleAnyway:" + name,
                            "kubernetes.io/hostname:ScheduleAnyway:" + name);
            long preStop = pod.getContainers().getFirst().getLifecycle().getPreStop().getSleep().getSeconds();
            assertThat(preStop).as(name + ": endpoints drop it before it stops").isPositive();
            assertThat(pod.getTerminationGracePeriodSeconds()).as(name + ": the preStop and the shutdown fit in the grace")
                    .isGreaterThan(preStop + shutdown.toSeconds());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "native", "sqs", "site", "small"})
    void eachReleaseHasAMigrationJobOfItsOwn(String overlay) throws IOException {
        Job job = ofType(typed(overlay), Job.class).getFirst();
        String image = job.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage();

        assertThat(job.getMetadata().getName()).as("named after the release's image: a new release is a new Job")
                .isEqualTo("loadflow-migrate-" + image.substring(image.indexOf(':') + 1));
        assertThat(job.getSpec().getTtlSecondsAfterFinished()).isPositive();
        assertThat(job.getSpec().getActiveDeadlineSeconds()).as("a migration that cannot finish ends").isPositive();
        assertThat(job.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken())
                .as("no Kubernetes API token in the migration's pod").isFalse();
        assertThat(job.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
                .as("a migration waits for a lock a bounded time")
                .anySatisfy(env -> {
                    assertThat(env.getName()).isEqualTo("QUARKUS_FLYWAY_INIT_SQL");
                    assertThat(env.getValue()).contains("lock_timeout");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"jvm", "native", "sqs", "site"})
    void kedaReachesTheDatabaseFromItsOwnNamespaceReadOnlyAndScalesCalmly(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);
        String schema = config(objects).get("LOADFLOW_DB_SCHEMA");
        JsonNode auth = spec(named(ofKind(objects, "TriggerAuthentication"), "loadflow-keda"));
        assertThat(auth.path("secretTargetRef").findValuesAsText("parameter"))
                .containsExactlyInAnyOrder("host", "port", "dbName", "userName", "password", "sslmode");
        assertThat(auth.path("secretTargetRef").findValuesAsText("name")).as("generated by the site, with its hash")
                .containsOnly(overlay.equals("site") ? named(objects, "Secret", "loadflow-keda") : "loadflow-keda");

        for (GenericKubernetesResource scaled : ofKind(objects, "ScaledObject")) {
            JsonNode spec = spec(scaled);
            String name = scaled.getMetadata().getName();
            assertThat(spec.has("cooldownPeriod")).as(name + ": never scales to zero, so no cooldown").isFalse();
            assertThat(spec.path("minReplicaCount").asInt()).isGreaterThanOrEqualTo(2);
            assertThat(spec.path("fallback").path("replicas").asInt()).as(name).isGreaterThanOrEqualTo(2);
            JsonNode behavior = spec.path("advanced").path("horizontalPodAutoscalerConfig").path("behavior");
            assertThat(behavior.path("scaleDown").path("stabilizationWindowSeconds").asInt()).as(name).isGreaterThanOrEqualTo(300);
            for (JsonNode trigger : spec.path("triggers")) {
                if (trigger.path("type").asText().equals("postgresql")) {
                    JsonNode metadata = trigger.path("metadata");
                    assertThat(metadata.has("host")).as(name + ": the host comes from the Secret, fully qualified").isFalse();
                    assertThat(metadata.path("query").asText()).as(name).contains(" " + schema + ".")
                            .doesNotContainPattern("FROM (?!" + schema + "\\.)");
                    assertThat(trigger.path("authenticationRef").path("name").asText()).isEqualTo("loadflow-keda");
                }
            }
        }
        JsonNode dispatcher = spec(named(ofKind(objects, "ScaledObject"), "outbox-dispatcher")).path("triggers").get(0);
        assertThat(dispatcher.path("metadata").path("query").asText())
                .as("the view of due rows, which leaves out those an open circuit holds back (KedaQueriesTest)")
                .contains("scaler_rows_due");
    }

    @Test
    void theSqsVariantScalesTheWorkerOnTheQueueAndLetsTheServicesReachIt() throws IOException {
        List<HasMetadata> objects = typed("sqs");
        Map<String, String> config = config(objects);
        assertThat(config).containsEntry("LOADFLOW_QUEUE_KIND", "sqs")
                .containsKeys("LOADFLOW_QUEUE_SQS_URL", "LOADFLOW_QUEUE_SQS_DEAD_LETTER_URL", "LOADFLOW_QUEUE_SQS_REGION");
        assertThat(config.get("LOADFLOW_QUEUE_SQS_URL")).endsWith(".fifo");
        assertThat(config).as("one receive call per message: smaller worker batches").containsEntry("LOADFLOW_WORKER_BATCH_SIZE", "16");

        JsonNode worker = spec(named(ofKind(objects, "ScaledObject"), "load-worker")).path("triggers");
        assertThat(worker).hasSize(1);
        assertThat(worker.get(0).path("type").asText()).isEqualTo("aws-sqs-queue");
        assertThat(config).containsKey(worker.get(0).path("metadata").path("queueURLFromEnv").asText());
        assertThat(worker.get(0).path("metadata").path("awsRegion").asText()).isEqualTo(config.get("LOADFLOW_QUEUE_SQS_REGION"));
        JsonNode auth = spec(named(ofKind(objects, "TriggerAuthentication"), worker.get(0).path("authenticationRef").path("name").asText()));
        assertThat(auth.path("podIdentity").path("provider").asText()).isEqualTo("aws");
        assertThat(spec(named(ofKind(objects, "ScaledObject"), "outbox-dispatcher")).path("triggers").get(0).path("type").asText())
                .as("the outbox stays in PostgreSQL").isEqualTo("postgresql");

        var account = ofType(objects, io.fabric8.kubernetes.api.model.ServiceAccount.class).getFirst();
        assertThat(account.getMetadata().getAnnotations()).containsKey("eks.amazonaws.com/role-arn");
        List<String> queueUsers = List.of("load-worker", "outbox-dispatcher", "timer-pump");
        for (String name : queueUsers) {
            assertThat(deployment(objects, name).getSpec().getTemplate().getSpec().getServiceAccountName()).as(name)
                    .isEqualTo(account.getMetadata().getName());
        }
        assertThat(deployment(objects, "ops-console").getSpec().getTemplate().getSpec().getServiceAccountName()).isNull();
        NetworkPolicy egress = ofType(objects, NetworkPolicy.class).stream()
                .filter(n -> n.getSpec().getEgress() != null && n.getSpec().getEgress().stream()
                        .anyMatch(r -> r.getPorts().stream().anyMatch(p -> p.getPort().getIntVal() == 443)))
                .filter(n -> n.getSpec().getPodSelector().getMatchExpressions() != null
                        && !n.getSpec().getPodSelector().getMatchExpressions().isEmpty())
                .findFirst().orElseThrow();
        assertThat(egress.getSpec().getPodSelector().getMatchExpressions().getFirst().getValues())
                .containsExactlyInAnyOrderElementsOf(queueUsers);
    }

    /** The Prometheus release label the monitoring objects are selected by is a site's value: the site overlay sets its own. */
    @Test
    void theMonitoringObjectsReleaseLabelIsSetByAnOverlay() throws IOException {
        List<HasMetadata> objects = typed("site");

        assertThat(ofType(objects, ServiceMonitor.class).getFirst().getMetadata().getLabels()).containsEntry("release", "acme-prometheus");
        assertThat(ofType(objects, PrometheusRule.class).getFirst().getMetadata().getLabels()).containsEntry("release", "acme-prometheus");
    }

    @Test
    void theImagesBuildTheirDependenciesInALayerOfTheirOwnFromAContextWithoutBuildOutput() throws IOException {
        List<String> ignored = Files.readAllLines(Path.of("..", ".dockerignore"));
        assertThat(ignored).contains("**/target/", ".git/");
        for (String service : List.of("load-worker", "outbox-dispatcher", "timer-pump", "ops-console")) {
            for (String kind : List.of("jvm", "native")) {
                String dockerfile = Files.readString(Path.of("..", service, "src", "main", "docker", "Dockerfile." + kind));
                int dependencies = dockerfile.indexOf("RUN mvn");
                int sources = dockerfile.indexOf("COPY . .");
                assertThat(dependencies).as(service + " " + kind).isPositive().isLessThan(sources);
                assertThat(dockerfile.substring(0, dependencies)).as("only poms before the dependency layer")
                        .contains("COPY pom.xml", "COPY " + service + "/pom.xml").doesNotContain("COPY . .");
            }
        }
    }

    /** The JVM images size the heap by the container's limit and name their collector, so raising the limit changes neither silently. */
    @Test
    void theJvmImagesNameTheirHeapShareAndCollector() throws IOException {
        for (String service : List.of("load-worker", "outbox-dispatcher", "timer-pump", "ops-console")) {
            String entrypoint = Files.readAllLines(Path.of("..", service, "src", "main", "docker", "Dockerfile.jvm")).stream()
                    .filter(line -> line.startsWith("ENTRYPOINT")).findFirst().orElseThrow();
            assertThat(entrypoint).as(service).contains("\"-XX:MaxRAMPercentage=" + HEAP_PERCENT + "\"", "\"-XX:+UseSerialGC\"");
        }
    }

    /** The share of a JVM pod's memory limit its image gives the heap. */
    private static final int HEAP_PERCENT = 60;

    /**
     * What a JVM keeps beside its heap, in MiB, at its most under the deployment benchmark
     * (committed, by Native Memory Tracking; 2026-12-06, docs/benchmarks.md "Memory"): classes,
     * code, threads, the collector, symbols, buffers.
     */
    private static final Map<String, Integer> BESIDE_HEAP_MIB = Map.of("load-worker", 136, "outbox-dispatcher", 124,
            "timer-pump", 95, "ops-console", 110);

    /**
     * Each JVM pod's memory limit holds its heap at its largest (the image's share of the limit)
     * and what the JVM was measured to keep beside it, with at least a tenth of the limit to spare;
     * it asks for a CPU limit and sizes its pools for it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "sqs", "site", "small"})
    void eachJvmPodsLimitHoldsItsHeapAndWhatTheJvmKeepsBesideItWithMargin(String overlay) throws IOException {
        for (Deployment d : ofType(typed(overlay), Deployment.class)) {
            String name = d.getMetadata().getName();
            Container container = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
            double limitMib = container.getResources().getLimits().get("memory").getNumericalAmount().doubleValue() / (1024 * 1024);
            double heapMib = limitMib * HEAP_PERCENT / 100;

            assertThat(limitMib - heapMib - BESIDE_HEAP_MIB.get(name)).as(name + ": MiB to spare in its limit of " + limitMib)
                    .isGreaterThanOrEqualTo(limitMib / 10);
            assertThat(container.getResources().getLimits()).as(name + " has a CPU limit").containsKey("cpu");
            assertThat(container.getEnv()).as(name + " sizes the JVM for it").anySatisfy(e -> {
                assertThat(e.getName()).isEqualTo("LOADFLOW_CPUS");
                assertThat(e.getValueFrom().getResourceFieldRef().getResource()).isEqualTo("limits.cpu");
            }).anySatisfy(e -> {
                assertThat(e.getName()).isEqualTo("JAVA_TOOL_OPTIONS");
                assertThat(e.getValue()).contains("-XX:ActiveProcessorCount=$(LOADFLOW_CPUS)");
            });
        }
    }

    @Test
    void theWorkerOutlivesARunWhenItIsStopped() throws IOException {
        Deployment worker = ofType(typed("jvm"), Deployment.class).stream()
                .filter(d -> d.getMetadata().getName().equals("load-worker")).findFirst().orElseThrow();

        long runDeadline = 120;
        var pod = worker.getSpec().getTemplate().getSpec();
        long preStop = pod.getContainers().getFirst().getLifecycle().getPreStop().getSleep().getSeconds();
        long consumerGrace = Duration.parse(pod.getContainers().getFirst().getEnv().stream()
                .filter(e -> e.getName().equals("LOADFLOW_WORKER_SHUTDOWN_GRACE")).findFirst().orElseThrow().getValue()).toSeconds();
        assertThat(consumerGrace).as("in-flight runs may finish").isGreaterThan(runDeadline);
        // the preStop, the consumer's grace, 10 s to abandon what is left, and a margin of 20 s at least
        assertThat(pod.getTerminationGracePeriodSeconds()).as("the shutdown fits in the grace with room to spare")
                .isGreaterThanOrEqualTo(preStop + consumerGrace + 10 + 20);
        assertThat(worker.getSpec().getMinReadySeconds()).as("the next old pod stops once this one has gone")
                .isGreaterThanOrEqualTo(pod.getTerminationGracePeriodSeconds().intValue());
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "sqs", "site", "small"})
    void servicesBudgetsAndAutoscalersPointAtRealDeployments(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);
        Map<String, Map<String, String>> podLabels = ofType(objects, Deployment.class).stream().collect(Collectors.toMap(
                d -> d.getMetadata().getName(), d -> d.getSpec().getTemplate().getMetadata().getLabels()));

        for (Service service : ofType(objects, Service.class)) {
            assertThat(podLabels.values()).as(service.getMetadata().getName())
                    .anySatisfy(labels -> assertThat(labels).containsAllEntriesOf(service.getSpec().getSelector()));
        }
        for (PodDisruptionBudget pdb : ofType(objects, PodDisruptionBudget.class)) {
            assertThat(podLabels.values()).anySatisfy(labels ->
                    assertThat(labels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels()));
            assertThat(pdb.getSpec().getMinAvailable()).as("a drain may not take all but one of a scaled fleet").isNull();
            assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        }
        List<String> targets = overlay.equals("plain") || overlay.equals("small")
                ? ofType(objects, io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler.class).stream()
                        .map(h -> h.getSpec().getScaleTargetRef().getName()).toList()
                : ofKind(objects, "ScaledObject").stream().map(s -> spec(s).path("scaleTargetRef").path("name").asText()).toList();
        assertThat(targets).containsExactlyInAnyOrder("load-worker", "outbox-dispatcher");
        assertThat(podLabels).containsKeys(targets.toArray(String[]::new));
        assertThat(ofType(objects, Deployment.class)).filteredOn(d -> targets.contains(d.getMetadata().getName()))
                .as("an autoscaled Deployment carries no replica count for an apply to reset").hasSize(2)
                .allSatisfy(d -> assertThat(d.getSpec().getReplicas()).isNull());
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
                    .isEqualTo(runbookUrl(objects) + "#" + alert.getAlert().toLowerCase(java.util.Locale.ROOT));
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

    /** Every overlay with the alerts links each runbook with the URL its own loadflow-site sets, absolute, to the alert's heading. */
    @ParameterizedTest
    @ValueSource(strings = {"jvm", "native", "sqs", "site"})
    void runbookLinksAreBuiltFromTheOverlaysOwnBaseUrl(String overlay) throws IOException {
        List<HasMetadata> objects = typed(overlay);
        String base = runbookUrl(objects);
        assertThat(URI.create(base)).as("an absolute https URL").satisfies(uri -> {
            assertThat(uri.getScheme()).isEqualTo("https");
            assertThat(uri.getPath()).endsWith("/operations.md");
        });
        assertThat(ofType(objects, PrometheusRule.class).getFirst().getSpec().getGroups().stream().flatMap(g -> g.getRules().stream()))
                .allSatisfy(alert -> assertThat(alert.getAnnotations().get("runbook_url"))
                        .isEqualTo(base + "#" + alert.getAlert().toLowerCase(java.util.Locale.ROOT)));
    }

    private static String runbookUrl(List<HasMetadata> objects) {
        return ofType(objects, io.fabric8.kubernetes.api.model.ConfigMap.class).stream()
                .filter(c -> c.getMetadata().getName().equals("loadflow-site")).findFirst().orElseThrow().getData().get("runbookUrl");
    }

    /**
     * The example site overlay sets every site value without an edit to the base: no value the
     * base ships for a site to change (hosts, the in-cluster endpoints, the cluster's namespaces,
     * the names of the Secrets and ConfigMaps a site creates, the Prometheus release, the images'
     * registry) is left in what it renders, and every object goes to the site's namespace.
     */
    @Test
    void theSiteOverlaySetsEverySiteValueWithoutEditingTheBase() throws IOException {
        Set<String> baseValues = Set.of("monitoring", "observability", "integrations", "ingress-nginx", "kube-prometheus-stack",
                "loadflow-secrets", "loadflow-migrate-secrets", "loadflow-console-secrets", "loadflow-ingest-tokens",
                "loadflow-dispatcher-secrets", "loadflow-retention-secrets",
                "loadflow-jwt", "loadflow-keda", "loadflow-llm", "ops-console-tls", "load-worker-ingest-tls", "nginx");
        List<String> leftOver = new ArrayList<>();
        for (ObjectNode object : Kustomize.render(SiteOverlay.overlay(K8S, "site"))) {
            String id = object.path("kind").asText() + "/" + object.path("metadata").path("name").asText();
            assertThat(object.path("metadata").path("namespace").asText()).as(id).isEqualTo("freight-automation");
            valuesOf(object, "", (path, value) -> {
                boolean objectName = path.endsWith("/metadata/name") || path.endsWith("/authenticationRef/name");
                if ((baseValues.contains(value) && !objectName) || value.contains("loadflow.internal")
                        || value.contains("loadflow-postgres") || value.matches("[a-z-]+\\.(integrations|observability)\\.svc.*")
                        || value.startsWith("loadflow/")) {
                    leftOver.add(id + " " + path + ": " + value);
                }
            });
        }
        assertThat(leftOver).as("the base's site values left in the site overlay").isEmpty();
        List<HasMetadata> site = typed("site");
        List<PodSpec> pods = new ArrayList<>(ofType(site, Deployment.class).stream().map(d -> d.getSpec().getTemplate().getSpec()).toList());
        ofType(site, Job.class).forEach(job -> pods.add(job.getSpec().getTemplate().getSpec()));
        assertThat(pods).as("every pod pulls with the site's Secret").hasSize(5).allSatisfy(pod ->
                assertThat(pod.getImagePullSecrets()).extracting(s -> s.getName()).containsExactly("acme-registry-pull"));
        assertThat(ofType(site, io.fabric8.kubernetes.api.model.networking.v1.Ingress.class)).as("the site's ingress class")
                .hasSize(2).allSatisfy(ingress -> assertThat(ingress.getSpec().getIngressClassName()).isEqualTo("acme-edge"));
    }

    /**
     * The site overlay changes the base by name only: no JSON patch (its own, or any other
     * overlay's or component's) addresses a list element by position, and every ConfigMap and Secret a pod reads is generated, with its
     * content's hash in its name, so a changed value or secret rolls the pods that read it. The
     * site's own values reach the rendered objects: the database's port in its policy, the
     * sources' settings in the worker's environment.
     */
    @Test
    void theSiteOverlayPatchesByNameAndEveryChangeOfConfigRollsThePods() throws IOException {
        List<Path> kustomizations;
        try (var files = Files.walk(K8S)) {
            kustomizations = files.filter(f -> f.getFileName().toString().equals("kustomization.yaml")).toList();
        }
        assertThat(kustomizations).as("the site overlay's, and every other's and component's").contains(K8S.resolve("overlays/site/kustomization.yaml"));
        for (Path kustomization : kustomizations) {
            for (JsonNode patch : Kustomize.YAML.readTree(kustomization.toFile()).path("patches")) {
                JsonNode body = Kustomize.YAML.readTree(kustomization.resolveSibling(patch.path("path").asText()).toFile());
                if (body.isArray()) {
                    body.forEach(op -> assertThat(op.path("path").asText()).as(kustomization.getParent() + "/" + patch.path("path").asText()
                            + ": a JSON patch by position").doesNotContainPattern("/\\d+(/|$)"));
                }
            }
        }
        List<HasMetadata> site = typed("site");
        Set<String> generated = site.stream().filter(o -> o.getKind().equals("ConfigMap") || o.getKind().equals("Secret"))
                .map(o -> o.getMetadata().getName()).filter(name -> !Kustomize.unhashed(name).equals(name)).collect(Collectors.toSet());
        List<PodSpec> pods = new ArrayList<>(ofType(site, Deployment.class).stream().map(d -> d.getSpec().getTemplate().getSpec()).toList());
        ofType(site, Job.class).forEach(job -> pods.add(job.getSpec().getTemplate().getSpec()));
        assertThat(pods).hasSize(5).allSatisfy(pod -> {
            List<String> read = new ArrayList<>();
            pod.getContainers().forEach(c -> c.getEnvFrom().forEach(e -> read.add(e.getSecretRef() != null ? e.getSecretRef().getName()
                    : e.getConfigMapRef().getName())));
            pod.getContainers().forEach(c -> c.getEnv().stream().filter(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null)
                    .forEach(e -> read.add(e.getValueFrom().getSecretKeyRef().getName())));
            pod.getVolumes().stream().filter(v -> v.getConfigMap() != null).forEach(v -> read.add(v.getConfigMap().getName()));
            assertThat(read).as("what a pod reads, each generated with its hash").isNotEmpty().allSatisfy(name -> assertThat(generated).contains(name));
        });
        assertThat(ofType(site, NetworkPolicy.class).stream().filter(p -> p.getMetadata().getName().equals("loadflow-database")).findFirst()
                .orElseThrow().getSpec().getEgress()).flatExtracting(rule -> rule.getPorts().stream().map(p -> p.getPort().getIntVal()).toList())
                .containsExactly(5433);
        for (String retaining : List.of("load-worker", "outbox-dispatcher")) {
            PodSpec pod = ofType(site, Deployment.class).stream().filter(d -> d.getMetadata().getName().equals(retaining)).findFirst()
                    .orElseThrow().getSpec().getTemplate().getSpec();
            String exportDir = pod.getContainers().getFirst().getEnv().stream().filter(e -> e.getName().equals("LOADFLOW_RETENTION_EXPORT_DIR"))
                    .findFirst().orElseThrow().getValue();
            String volume = pod.getContainers().getFirst().getVolumeMounts().stream().filter(m -> m.getMountPath().equals(exportDir))
                    .findFirst().orElseThrow().getName();
            assertThat(pod.getVolumes()).as(retaining + ": retention's copies on the site's claim")
                    .anySatisfy(v -> assertThat(v.getName().equals(volume) && v.getPersistentVolumeClaim() != null
                            && v.getPersistentVolumeClaim().getClaimName().equals("loadflow-retention-export")).isTrue());
        }
        assertThat(ofType(site, io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class)).extracting(c -> c.getMetadata().getName())
                .containsExactly("loadflow-retention-export");
        Deployment worker = ofType(site, Deployment.class).stream().filter(d -> d.getMetadata().getName().equals("load-worker")).findFirst().orElseThrow();
        assertThat(worker.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
                .extracting(e -> e.getName() + "=" + e.getValue())
                .contains("LOADFLOW_INGEST_SOURCES_TMS_CLIENTS=acme-foods,acme-retail", "LOADFLOW_INGEST_SOURCES_TELEMATICS_RATE=400")
                .doesNotContain("LOADFLOW_INGEST_SOURCES_TELEMATICS_RATE=200");
    }

    private static void valuesOf(JsonNode node, String path, java.util.function.BiConsumer<String, String> each) {
        if (node.isObject()) {
            node.fields().forEachRemaining(f -> valuesOf(f.getValue(), path + "/" + f.getKey(), each));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                valuesOf(node.get(i), path + "/" + i, each);
            }
        } else if (node.isTextual()) {
            each.accept(path, node.asText());
        }
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
        ObjectNode configMap = Kustomize.readAll(K8S.resolve("components").resolve("monitoring").resolve("grafana-dashboard.yaml")).get(0);
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
    @ValueSource(strings = {"overlays/plain", "overlays/jvm", "overlays/native", "overlays/sqs", "overlays/site", "overlays/small", "base"})
    void ourRenderingMatchesKubectlKustomizeWhereKubectlIsInstalled(String variant) throws Exception {
        Path kubectl = Path.of("/usr/bin/kubectl");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(kubectl), "kubectl is not installed");
        Path folder = variant.startsWith("overlays/") ? SiteOverlay.overlay(K8S, variant.substring("overlays/".length())) : K8S.resolve(variant);
        Process process = new ProcessBuilder(kubectl.toString(), "kustomize", folder.toString())
                .redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(out).isZero();
        Path rendered = Files.createTempFile("kustomize", ".yaml");
        Files.writeString(rendered, out);

        Set<JsonNode> theirs = new HashSet<>(Kustomize.readAll(rendered));
        Set<JsonNode> ours = new HashSet<>(Kustomize.render(folder));
        Set<JsonNode> oursOnly = new HashSet<>(ours);
        oursOnly.removeAll(theirs);
        Set<JsonNode> theirsOnly = new HashSet<>(theirs);
        theirsOnly.removeAll(ours);
        assertThat(oursOnly).as("rendered here and not by kubectl kustomize (kubectl's: %s)", theirsOnly).isEmpty();
        assertThat(theirsOnly).as("rendered by kubectl kustomize and not here").isEmpty();
    }
}
