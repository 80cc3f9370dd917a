package dev.loadflow.evals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.deploy.Kustomize;
import dev.loadflow.deploy.SiteOverlay;
import dev.loadflow.evals.local.LocalRun;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged services with the environment each rendered overlay gives them (its ConfigMaps,
 * the service's pools, the container's own variables with {@code $(NAME)} and the downward API
 * resolved as the kubelet resolves them; this test's database, ports, secrets and JWT key in place
 * of the cluster's). The overlay's migration Job applies every migration and exits 0: on a JDBC
 * pool of two it gave up after its last migration (Flyway's after-migrate callbacks take a third
 * connection), and again at every try, with or without migrations to apply. Then every
 * Deployment's service is ready on the migrated schema with the JDBC pool of one it is given: the
 * schema gate reads over the reactive pool. The site overlay's database takes TLS only
 * ({@code DatabaseTlsTest}) and the sqs overlay's queue is SQS: neither runs here.
 */
class ManifestEnvironmentTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> SERVICES = List.of("load-worker", "outbox-dispatcher", "timer-pump", "ops-console");

    private final TestDatabase database = PostgresServer.get().createDatabase("job", false);

    @AfterEach
    void close() {
        database.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "small"})
    void theJobMigratesAndExitsAndEveryDeploymentsServiceIsReadyOnTheSchema(String overlay) throws Exception {
        List<ObjectNode> rendered = Kustomize.render(SiteOverlay.overlay(ROOT.resolve("deploy/k8s"), overlay));
        Map<String, String> environment = environment(rendered, object(rendered, "Job", null));
        environment.put("QUARKUS_HTTP_PORT", "0");
        environment.put("QUARKUS_MANAGEMENT_PORT", "0");

        assertThat(runJob(environment)).as("the Job's exit code (log: target/migration-job.log)").isZero();
        assertThat(schemaVersion()).as("the schema's version").isEqualTo(newestMigration());

        Map<String, String> secrets = secrets();
        Map<String, Process> services = new LinkedHashMap<>();
        Map<String, Integer> managementPorts = new LinkedHashMap<>();
        try {
            for (String service : SERVICES) {
                ObjectNode deployment = object(rendered, "Deployment", service);
                Map<String, String> deployed = environment(rendered, deployment);
                String limit = deployment.path("spec").path("template").path("spec").path("containers").get(0)
                        .path("resources").path("limits").path("memory").asText();
                assertThat(LocalRun.POD_HEAP_MB.get(service)).as(service + ": the local run's heap is 60% of its pod's " + limit)
                        .isEqualTo(Integer.parseInt(limit.replace("Mi", "")) * 60 / 100);
                assertThat(deployed).as(service + "'s pools, from its ConfigMap").containsEntry("QUARKUS_DATASOURCE_JDBC_MAX_SIZE", "1");
                assertThat(deployed).as(service + "'s JVM, sized for its CPU limit")
                        .containsEntry("JAVA_TOOL_OPTIONS", "-XX:ActiveProcessorCount=2");
                int management = freePort();
                deployed.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(management));
                deployed.put("QUARKUS_HTTP_PORT", Integer.toString(freePort()));
                deployed.putAll(secrets);
                managementPorts.put(service, management);
                services.put(service, start(service, deployed, Path.of("target", "manifest-" + overlay + "-" + service + ".log")));
            }
            HttpClient http = HttpClient.newHttpClient();
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(managementPorts).allSatisfy((service, port) ->
                    assertThat(ready(http, port)).as(service + " ready (log: target/manifest-" + overlay + "-" + service + ".log)")
                            .isEqualTo(200)));
        } finally {
            services.values().forEach(Process::destroy);
            for (Process process : services.values()) {
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** What the Secrets and the JWT ConfigMap give the pods, made here: the break-glass token, a token per source, a key. */
    private Map<String, String> secrets() throws Exception {
        Path publicKey = Path.of("target", "manifest-jwt-public.pem");
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        Files.writeString(publicKey, "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(generator.generateKeyPair().getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");
        return Map.of("LOADFLOW_ADMIN_TOKEN", "manifest-" + UUID.randomUUID(),
                "LOADFLOW_INGEST_SOURCES_TELEMATICS_TOKEN", "telematics-" + UUID.randomUUID(),
                "LOADFLOW_INGEST_SOURCES_TMS_TOKEN", "tms-" + UUID.randomUUID(),
                "LOADFLOW_INGEST_SOURCES_SMSGATEWAY_TOKEN", "smsgateway-" + UUID.randomUUID(),
                "MP_JWT_VERIFY_PUBLICKEY_LOCATION", publicKey.toAbsolutePath().toString());
    }

    private static int ready(HttpClient http, int port) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** The rendered object of {@code kind} (named {@code name}, or the only one). */
    private static ObjectNode object(List<ObjectNode> rendered, String kind, String name) {
        return rendered.stream().filter(o -> o.path("kind").asText().equals(kind))
                .filter(o -> name == null || o.path("metadata").path("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the overlay"));
    }

    /**
     * What the kubelet gives the first container of {@code workload} (a Job or a Deployment): its
     * ConfigMaps' data in envFrom order, then its own variables, a {@code $(NAME)} in a value being
     * the value of a variable before it and a resource field the container's resource in whole
     * units; then this test's database in place of the cluster's.
     */
    private Map<String, String> environment(List<ObjectNode> rendered, ObjectNode workload) {
        Map<String, String> environment = new LinkedHashMap<>();
        JsonNode container = workload.path("spec").path("template").path("spec").path("containers").get(0);
        for (JsonNode from : container.path("envFrom")) {
            String configMap = from.path("configMapRef").path("name").asText(null);
            if (configMap != null) {
                object(rendered, "ConfigMap", configMap).path("data").properties()
                        .forEach(setting -> environment.put(setting.getKey(), setting.getValue().asText()));
            }
        }
        container.path("env").forEach(variable -> {
            if (variable.has("value")) {
                String value = variable.path("value").asText();
                for (var earlier : environment.entrySet()) {
                    value = value.replace("$(" + earlier.getKey() + ")", earlier.getValue());
                }
                environment.put(variable.path("name").asText(), value);
            } else if (variable.path("valueFrom").has("resourceFieldRef")) {
                String[] resource = variable.path("valueFrom").path("resourceFieldRef").path("resource").asText().split("\\.");
                String amount = container.path("resources").path(resource[0]).path(resource[1]).asText();
                double units = amount.endsWith("m") ? Double.parseDouble(amount.substring(0, amount.length() - 1)) / 1000
                        : Double.parseDouble(amount);
                environment.put(variable.path("name").asText(), Long.toString((long) Math.ceil(units)));
            }
        });
        environment.put("QUARKUS_DATASOURCE_JDBC_URL", database.jdbcUrl());
        environment.put("QUARKUS_DATASOURCE_REACTIVE_URL", database.reactiveUrl());
        environment.put("QUARKUS_DATASOURCE_USERNAME", database.user());
        environment.put("QUARKUS_DATASOURCE_PASSWORD", database.password());
        return environment;
    }

    /** The packaged {@code service} with {@code environment}, its output in {@code log}. */
    private static Process start(String service, Map<String, String> environment, Path log) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder process = new ProcessBuilder(java, "-jar",
                ROOT.resolve(service + "/target/quarkus-app/quarkus-run.jar").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        process.environment().putAll(environment);
        return process.start();
    }

    private int runJob(Map<String, String> environment) throws IOException, InterruptedException {
        Path log = Path.of("target", "migration-job.log");
        Process process = start("load-worker", environment, log);
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the Job did not exit within two minutes: " + log);
        }
        return process.exitValue();
    }

    private int schemaVersion() throws SQLException {
        try (Connection connection = DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT max(version::int) FROM flyway_schema_history WHERE success AND version IS NOT NULL")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static int newestMigration() throws IOException {
        try (Stream<Path> migrations = Files.list(ROOT.resolve("store-postgres/src/main/resources/db/migration"))) {
            return migrations.map(path -> path.getFileName().toString()).filter(name -> name.matches("V\\d+__.*\\.sql"))
                    .mapToInt(name -> Integer.parseInt(name.substring(1, name.indexOf("__")))).max().orElseThrow();
        }
    }
}
