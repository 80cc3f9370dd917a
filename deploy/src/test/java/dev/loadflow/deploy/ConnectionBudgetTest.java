package dev.loadflow.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database's connections at the worst moment of a release, computed from the rendered
 * manifests: every Deployment at its autoscaler's maximum, the pods a rollout adds and the old
 * pods still stopping (each holding its pools through its grace period), the migration Job, and
 * the connections from outside the fleet, against the server the overlay declares
 * ({@code loadflow-connection-budget}) less its reserve. The table docs/deploying.md shows is the
 * one computed here.
 */
class ConnectionBudgetTest {

    private static final Path K8S = Path.of("k8s");
    private static final Pattern ALERT_RATIO = Pattern.compile("loadflow_db_connections_limit > 0\\)\\) > ([0-9.]+)");

    /** One Deployment's share at the worst moment. */
    record Share(String name, int maxReplicas, int rolloutPods, int perPod, String pools) {
        int worstPods() {
            return maxReplicas + rolloutPods;
        }

        int connections() {
            return worstPods() * perPod;
        }
    }

    /** The fleet's budget: each Deployment's share, the Job's, the connections from outside, and the server's. */
    record Budget(List<Share> shares, int job, int other, int maxConnections, int reserved) {
        int total() {
            return shares.stream().mapToInt(Share::connections).sum() + job + other;
        }

        int usable() {
            return maxConnections - reserved;
        }

        /** The fleet with every autoscaler at its maximum and no release under way. */
        int steady() {
            return shares.stream().mapToInt(s -> s.maxReplicas() * s.perPod()).sum() + other;
        }

        /** The table docs/deploying.md shows. */
        String markdown() {
            StringBuilder table = new StringBuilder("""
                    | service | pods at the maximum | a release adds | reactive + JDBC + LISTEN + retention | at the worst moment |
                    |---|---|---|---|---|
                    """);
            for (Share s : shares) {
                table.append("| ").append(s.name()).append(" | ").append(s.maxReplicas()).append(" | ").append(s.rolloutPods())
                        .append(" | ").append(s.pools()).append(" | ").append(s.connections()).append(" |\n");
            }
            table.append("| the migration Job (JDBC + reactive) | | | | ").append(job).append(" |\n");
            table.append("| KEDA's polls, an operator's `psql` | | | | ").append(other).append(" |\n");
            table.append("| **total** | | | | **").append(total()).append(" of ").append(usable()).append("** |\n");
            return table.toString();
        }
    }

    static Budget budget(String overlay) throws IOException {
        List<ObjectNode> objects = Kustomize.render(SiteOverlay.overlay(K8S, overlay));
        Map<String, JsonNode> configMaps = new HashMap<>();
        Map<String, Integer> maxima = new HashMap<>();
        for (ObjectNode o : objects) {
            String kind = o.path("kind").asText();
            String name = o.path("metadata").path("name").asText();
            switch (kind) {
                case "ConfigMap" -> configMaps.put(name, o.path("data"));
                case "ScaledObject" -> maxima.put(o.path("spec").path("scaleTargetRef").path("name").asText(),
                        o.path("spec").path("maxReplicaCount").asInt());
                case "HorizontalPodAutoscaler" -> maxima.put(o.path("spec").path("scaleTargetRef").path("name").asText(),
                        o.path("spec").path("maxReplicas").asInt());
                default -> { }
            }
        }
        List<Share> shares = new ArrayList<>();
        int job = 0;
        for (ObjectNode o : objects) {
            String name = o.path("metadata").path("name").asText();
            if (o.path("kind").asText().equals("Job")) {
                Map<String, String> env = environment(o.path("spec").path("template").path("spec"), configMaps);
                job = integer(env, "QUARKUS_DATASOURCE_JDBC_MAX_SIZE", name) + integer(env, "QUARKUS_DATASOURCE_REACTIVE_MAX_SIZE", name);
            }
            if (!o.path("kind").asText().equals("Deployment")) {
                continue;
            }
            JsonNode spec = o.path("spec");
            JsonNode pod = spec.path("template").path("spec");
            Map<String, String> env = environment(pod, configMaps);
            assertThat(env.get("LOADFLOW_DB_MIGRATE_AT_START")).as(name + " leaves the migrations to the Job (its JDBC pool is one)")
                    .isEqualTo("false");
            int reactive = integer(env, "QUARKUS_DATASOURCE_REACTIVE_MAX_SIZE", name);
            int jdbc = integer(env, "QUARKUS_DATASOURCE_JDBC_MAX_SIZE", name);
            // retention under a login of its own (the worker's and the dispatcher's Secret) holds a pool of its own
            boolean ownRetentionLogin = pod.path("containers").get(0).path("envFrom").toString().contains("retention");
            int retention = ownRetentionLogin ? integer(env, "LOADFLOW_RETENTION_MAX_CONNECTIONS", name) : 0;
            JsonNode rolling = spec.path("strategy").path("rollingUpdate");
            int surge = rolling.path("maxSurge").asInt();
            int unavailable = rolling.path("maxUnavailable").asInt();
            assertThat(spec.path("minReadySeconds").asInt()).as(name + ": an old pod has stopped before the next is told to")
                    .isGreaterThanOrEqualTo(pod.path("terminationGracePeriodSeconds").asInt());
            int max = maxima.getOrDefault(name, spec.path("replicas").asInt());
            // a rollout step starts `surge` pods above the maximum and stops `surge + unavailable` old ones, which hold
            // their pools until they have gone; minReadySeconds keeps the next step until then
            shares.add(new Share(name, max, surge + surge + unavailable, reactive + jdbc + 1 + retention,
                    reactive + " + " + jdbc + " + 1 + " + retention));
        }
        JsonNode declared = configMaps.get("loadflow-connection-budget");
        assertThat(declared).as(overlay + " declares the server it is sized for").isNotNull();
        return new Budget(shares, job, declared.path("otherConnections").asInt(), declared.path("maxConnections").asInt(),
                declared.path("reservedConnections").asInt());
    }

    /** What a pod's container sees: its ConfigMaps' data in envFrom order (later wins), then its own env. */
    private static Map<String, String> environment(JsonNode pod, Map<String, JsonNode> configMaps) {
        Map<String, String> env = new HashMap<>();
        JsonNode container = pod.path("containers").get(0);
        for (JsonNode from : container.path("envFrom")) {
            JsonNode data = configMaps.get(from.path("configMapRef").path("name").asText());
            if (data != null) {
                data.properties().forEach(e -> env.put(e.getKey(), e.getValue().asText()));
            }
        }
        for (JsonNode e : container.path("env")) {
            if (e.has("value")) {
                env.put(e.path("name").asText(), e.path("value").asText());
            }
        }
        return env;
    }

    private static int integer(Map<String, String> env, String key, String who) {
        assertThat(env).as(who + " sets " + key).containsKey(key);
        return Integer.parseInt(env.get(key));
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "native", "sqs", "site", "small"})
    void theFleetFitsItsServerAtTheWorstMomentOfARelease(String overlay) throws IOException {
        Budget budget = budget(overlay);

        assertThat(budget.total()).as("%s at the worst moment of a release:%n%s", overlay, budget.markdown())
                .isLessThanOrEqualTo(budget.usable());
        assertThat(budget.shares()).extracting(Share::name)
                .containsExactlyInAnyOrder("load-worker", "outbox-dispatcher", "timer-pump", "ops-console");
    }

    @Test
    void theSmallDbComponentFitsFiftyConnections() throws IOException {
        Budget budget = budget("small");

        assertThat(budget.maxConnections()).isEqualTo(50);
        assertThat(budget.total()).isLessThanOrEqualTo(50 - 3);
    }

    /** The tables docs/deploying.md shows are the ones the manifests make. */
    @Test
    void theDocumentedBudgetIsTheOneTheManifestsMake() throws IOException {
        String deploying = Files.readString(Path.of("..", "docs", "deploying.md"));

        assertThat(deploying).as("the 100-connection table").contains(budget("jvm").markdown());
        assertThat(deploying).as("the small-db table").contains(budget("small").markdown());
    }

    /**
     * The alert on the server's connections fires only beyond what the fleet can hold at the worst
     * moment of a release; KEDA, when it cannot read the database, holds each Deployment at its
     * minimum rather than scaling out against a failing database.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jvm", "native", "sqs", "site"})
    void theAlertIsAboveThePlanAndKedaFallsBackToItsMinimum(String overlay) throws IOException {
        Budget budget = budget(overlay);
        List<ObjectNode> objects = Kustomize.render(SiteOverlay.overlay(K8S, overlay));
        String rules = objects.stream().filter(o -> o.path("kind").asText().equals("PrometheusRule")).findFirst().orElseThrow()
                .toString();
        Matcher ratio = ALERT_RATIO.matcher(rules);
        assertThat(ratio.find()).as("LoadflowDatabaseConnectionsHigh's threshold").isTrue();

        assertThat(Double.parseDouble(ratio.group(1))).as("the alert's share of max_connections")
                .isGreaterThan((double) budget.total() / budget.maxConnections());
        objects.stream().filter(o -> o.path("kind").asText().equals("ScaledObject")).forEach(scaled ->
                assertThat(scaled.path("spec").path("fallback").path("replicas").asInt())
                        .as(scaled.path("metadata").path("name").asText() + "'s fallback")
                        .isEqualTo(scaled.path("spec").path("minReplicaCount").asInt()));
    }
}
