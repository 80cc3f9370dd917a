package dev.loadflow.evals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.deploy.Kustomize;
import dev.loadflow.deploy.SiteOverlay;
import dev.loadflow.evals.local.LocalRun;
import dev.loadflow.service.testing.TlsPostgresTestResource;
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
 * The packaged services started as each rendered overlay starts them: the command of their image
 * (its Dockerfile's ENTRYPOINT, the container's memory limit as the memory the JVM sizes its heap
 * from) and the environment the container gets (its ConfigMaps, the service's pools, the
 * container's own variables with {@code $(NAME)} and the downward API resolved as the kubelet
 * resolves them; this test's database, ports, secrets and JWT key in place of the cluster's
 * where the overlay leaves them to the site). Each service's heap is the share of its limit the
 * image gives it. The overlay's migration Job applies every migration and exits 0: on a JDBC
 * pool of two it gave up after its last migration (Flyway's after-migrate callbacks take a third
 * connection), and again at every try, with or without migrations to apply. Then every
 * Deployment's service is ready on the migrated schema with the JDBC pool of one it is given: the
 * schema gate reads over the reactive pool. The site overlay runs as a site's pipeline runs it:
 * its from-site/ files written (the logins, tokens and keys, the identity provider's public key,
 * the certificate authority of a database that takes TLS only), its generated Secrets and
 * ConfigMaps given to the pods that name them, their volumes' files where the pods read them,
 * and its database reached as the overlay says (verify-full), every connection encrypted. The
 * sqs overlay runs with its queues on ElasticMQ (an SQS-compatible server) in place of the URLs
 * it names, its region and batches as it sets them.
 */
class ManifestEnvironmentTest {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> SERVICES = List.of("load-worker", "outbox-dispatcher", "timer-pump", "ops-console");

    private final TestDatabase database = PostgresServer.get().createDatabase("job", false);

    @AfterEach
    void close() {
        database.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "jvm", "small", "site", "sqs"})
    void theJobMigratesAndExitsAndEveryDeploymentsServiceIsReadyOnTheSchema(String overlay) throws Exception {
        TlsPostgresTestResource tls = new TlsPostgresTestResource();
        boolean site = overlay.equals("site");
        SqsStandIn queue = overlay.equals("sqs") ? new SqsStandIn(Duration.ZERO) : null;
        Map<String, String> handMade = new LinkedHashMap<>();
        List<ObjectNode> rendered;
        if (site) {
            tls.start();
            rendered = Kustomize.render(SiteOverlay.prepared(ROOT.resolve("deploy/k8s"), Path.of("target", "site-overlay-run").toAbsolutePath(),
                    siteFiles()));
        } else {
            rendered = Kustomize.render(SiteOverlay.overlay(ROOT.resolve("deploy/k8s"), overlay));
            handMade.putAll(secrets());
        }
        try {
            Map<String, String> onTheStandIn = new LinkedHashMap<>();
            if (queue != null) {
                // the overlay's queues, whose URLs and region it sets, reached on ElasticMQ in their place
                Map<String, String> worker = environment(rendered, object(rendered, "Deployment", "load-worker"), "load-worker", database);
                assertThat(worker).containsEntry("LOADFLOW_QUEUE_KIND", "sqs").containsKey("LOADFLOW_QUEUE_SQS_REGION");
                assertThat(List.of(worker.get("LOADFLOW_QUEUE_SQS_URL"), worker.get("LOADFLOW_QUEUE_SQS_DEAD_LETTER_URL")))
                        .as("the overlay's own queues").allSatisfy(url -> assertThat(url).startsWith("https://sqs.").endsWith(".fifo"));
                onTheStandIn.put("LOADFLOW_QUEUE_SQS_ENDPOINT", queue.endpoint());
                onTheStandIn.put("LOADFLOW_QUEUE_SQS_URL", queue.queueUrls().get(0));
                onTheStandIn.put("LOADFLOW_QUEUE_SQS_DEAD_LETTER_URL", queue.queueUrls().get(1));
                handMade.putAll(onTheStandIn);
            }
            Map<String, String> environment = environment(rendered, object(rendered, "Job", null), "job", site ? null : database);
            environment.putAll(onTheStandIn);
            environment.put("QUARKUS_HTTP_PORT", "0");
            environment.put("QUARKUS_MANAGEMENT_PORT", "0");

            assertThat(runJob(ROOT, object(rendered, "Job", null), environment)).as("the Job's exit code (log: target/migration-job.log)").isZero();
            assertThat(site ? schemaVersion(TlsPostgresTestResource.admin())
                    : schemaVersion(DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())))
                    .as("the schema's version").isEqualTo(newestMigration(ROOT));
            startEveryService(overlay, rendered, handMade, site ? null : database, () -> {
                if (site) {
                    try (Connection admin = TlsPostgresTestResource.admin();
                         ResultSet rows = admin.createStatement().executeQuery("""
                                 SELECT count(*), count(*) FILTER (WHERE NOT s.ssl) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
                                 WHERE a.datname = 'loadflow_tls' AND a.pid <> pg_backend_pid()""")) {
                        rows.next();
                        assertThat(rows.getLong(1)).as("the site's services' connections").isGreaterThanOrEqualTo(SERVICES.size() * 2);
                        assertThat(rows.getLong(2)).as("of them, in the clear").isZero();
                    }
                }
            });
        } finally {
            tls.stop();
            if (queue != null) {
                queue.close();
            }
        }
    }

    /** Something to check while the services run. */
    interface WhileReady {
        void check() throws Exception;
    }

    /** Every Deployment's service as the overlay starts it, each ready; then {@code whileReady}; then all stopped. */
    static void startEveryService(String overlay, List<ObjectNode> rendered, Map<String, String> handMade, TestDatabase database,
                                  WhileReady whileReady) throws Exception {
        Map<String, Process> services = new LinkedHashMap<>();
        Map<String, Integer> managementPorts = new LinkedHashMap<>();
        try {
            for (String service : SERVICES) {
                ObjectNode deployment = object(rendered, "Deployment", service);
                Map<String, String> deployed = environment(rendered, deployment, service, database);
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
                deployed.putAll(handMade);
                managementPorts.put(service, management);
                services.put(service, start(ROOT, deployment, deployed, Path.of("target", "manifest-" + overlay + "-" + service + ".log")));
            }
            HttpClient http = HttpClient.newHttpClient();
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(managementPorts).allSatisfy((service, port) ->
                    assertThat(ready(http, port)).as(service + " ready (log: target/manifest-" + overlay + "-" + service + ".log)")
                            .isEqualTo(200)));
            for (String service : SERVICES) {
                String limit = object(rendered, "Deployment", service).path("spec").path("template").path("spec").path("containers")
                        .get(0).path("resources").path("limits").path("memory").asText();
                assertThat(heap(http, managementPorts.get(service))).as(service + "'s heap, sized by its image from its pod's " + limit)
                        .isBetween((long) (bytes(limit) * 0.5), (long) (bytes(limit) * 0.6));
            }
            whileReady.check();
        } finally {
            services.values().forEach(Process::destroy);
            for (Process process : services.values()) {
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * What the site's pipeline writes into from-site/ for this run: every login is the TLS
     * server's superuser, the certificate authority is the one that signed its certificate.
     */
    private static Map<String, String> siteFiles() throws Exception {
        String login = "QUARKUS_DATASOURCE_USERNAME=postgres\nQUARKUS_DATASOURCE_PASSWORD=postgres\n";
        return Map.of("services.env", login + "LOADFLOW_ADMIN_TOKEN=site-" + UUID.randomUUID() + "\n",
                "migrate.env", login,
                "console.env", login + "LOADFLOW_CONSOLE_SIGN_IN_KEY=" + UUID.randomUUID() + UUID.randomUUID() + "\n",
                "retention.env", "LOADFLOW_RETENTION_USERNAME=postgres\nLOADFLOW_RETENTION_PASSWORD=postgres\n",
                "idp-public-key.pem", publicKeyPem(),
                "db-ca.crt", Files.readString(TlsPostgresTestResource.authority()));
    }

    static Map<String, String> secrets() throws Exception {
        Path publicKey = Path.of("target", "manifest-jwt-public.pem");
        Files.writeString(publicKey, publicKeyPem());
        return Map.of("LOADFLOW_ADMIN_TOKEN", "manifest-" + UUID.randomUUID(),
                "LOADFLOW_INGEST_SOURCES_TELEMATICS_TOKEN", "telematics-" + UUID.randomUUID(),
                "LOADFLOW_INGEST_SOURCES_TMS_TOKEN", "tms-" + UUID.randomUUID(),
                "LOADFLOW_INGEST_SOURCES_SMSGATEWAY_TOKEN", "smsgateway-" + UUID.randomUUID(),
                "MP_JWT_VERIFY_PUBLICKEY_LOCATION", publicKey.toAbsolutePath().toString());
    }

    /** A new RSA public key, as an identity provider publishes it (PEM). */
    static String publicKeyPem() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(generator.generateKeyPair().getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    static int ready(HttpClient http, int port) {
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

    /** The largest heap the service's JVM may take: its heap pools' maxima, from its metrics. */
    private static long heap(HttpClient http, int port) throws IOException, InterruptedException {
        String metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(line -> line.startsWith("jvm_memory_max_bytes{") && line.contains("area=\"heap\""))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** The rendered object of {@code kind} (named {@code name}, or the only one). */
    static ObjectNode object(List<ObjectNode> rendered, String kind, String name) {
        return rendered.stream().filter(o -> o.path("kind").asText().equals(kind))
                .filter(o -> name == null || o.path("metadata").path("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the overlay"));
    }

    /**
     * What the kubelet gives the first container of {@code workload} (a Job or a Deployment): the
     * data of its ConfigMaps and Secrets (those the overlay renders) in envFrom order, then its
     * own variables, a {@code $(NAME)} in a value being the value of a variable before it, a
     * resource field the container's resource in whole units and a Secret's key its value. Each
     * ConfigMap or Secret volume the overlay renders is written to a folder of its own, and a
     * value that names a file under its mount path names the same file there. Then the database:
     * without {@code database} (the site's), the overlay's is reached where this test's TLS server
     * listens, under the overlay's settings; any other overlay's is replaced by {@code database}.
     */
    static Map<String, String> environment(List<ObjectNode> rendered, ObjectNode workload, String who, TestDatabase database)
            throws IOException {
        return environment(rendered, workload, who, database, "//localhost:" + TlsPostgresTestResource.port() + "/" + TlsPostgresTestResource.DATABASE);
    }

    /** As above; the site's database, when {@code database} is null, reached at {@code siteDatabase} ({@code //host:port/name}). */
    static Map<String, String> environment(List<ObjectNode> rendered, ObjectNode workload, String who, TestDatabase database,
                                           String siteDatabase) throws IOException {
        Map<String, String> environment = new LinkedHashMap<>();
        JsonNode pod = workload.path("spec").path("template").path("spec");
        JsonNode container = pod.path("containers").get(0);
        for (JsonNode from : container.path("envFrom")) {
            data(rendered, from.has("configMapRef") ? "ConfigMap" : "Secret",
                    from.path(from.has("configMapRef") ? "configMapRef" : "secretRef").path("name").asText())
                    .forEach(environment::put);
        }
        for (JsonNode variable : container.path("env")) {
            JsonNode source = variable.path("valueFrom");
            if (variable.has("value")) {
                String value = variable.path("value").asText();
                for (var earlier : environment.entrySet()) {
                    value = value.replace("$(" + earlier.getKey() + ")", earlier.getValue());
                }
                environment.put(variable.path("name").asText(), value);
            } else if (source.has("resourceFieldRef")) {
                String[] resource = source.path("resourceFieldRef").path("resource").asText().split("\\.");
                String amount = container.path("resources").path(resource[0]).path(resource[1]).asText();
                double units = amount.endsWith("m") ? Double.parseDouble(amount.substring(0, amount.length() - 1)) / 1000
                        : Double.parseDouble(amount);
                environment.put(variable.path("name").asText(), Long.toString((long) Math.ceil(units)));
            } else if (source.has("secretKeyRef")) {
                String value = data(rendered, "Secret", source.path("secretKeyRef").path("name").asText())
                        .get(source.path("secretKeyRef").path("key").asText());
                if (value != null) {
                    environment.put(variable.path("name").asText(), value);
                }
            }
        }
        for (JsonNode mount : container.path("volumeMounts")) {
            JsonNode volume = null;
            for (JsonNode candidate : pod.path("volumes")) {
                if (candidate.path("name").asText().equals(mount.path("name").asText())) {
                    volume = candidate;
                }
            }
            String mountPath = mount.path("mountPath").asText();
            if (volume.has("persistentVolumeClaim")) {
                // a claim's volume: one folder, whichever pod mounts it
                Path claim = Files.createDirectories(Path.of("target", "mounts", "claims",
                        volume.path("persistentVolumeClaim").path("claimName").asText()).toAbsolutePath());
                environment.replaceAll((name, value) -> value.equals(mountPath) ? claim.toString() : value.replace(mountPath + "/", claim + "/"));
                continue;
            }
            String kind = volume.has("configMap") ? "ConfigMap" : volume.has("secret") ? "Secret" : null;
            if (kind == null) {
                continue;
            }
            Map<String, String> files = data(rendered, kind, volume.path(kind.equals("ConfigMap") ? "configMap" : "secret")
                    .path(kind.equals("ConfigMap") ? "name" : "secretName").asText());
            Path folder = Files.createDirectories(Path.of("target", "mounts", who, mount.path("name").asText()).toAbsolutePath());
            for (var file : files.entrySet()) {
                Files.writeString(folder.resolve(file.getKey()), file.getValue());
            }
            environment.replaceAll((name, value) -> value.replace(mountPath + "/", folder + "/"));
        }
        if (database == null) {
            String overlays = "//loadflow-db.acme.internal:5433/loadflow";
            String here = siteDatabase;
            assertThat(environment.get("QUARKUS_DATASOURCE_REACTIVE_URL")).as(who + ": the site's database").contains(overlays);
            environment.replaceAll((name, value) -> value.replace(overlays, here));
        } else {
            environment.put("QUARKUS_DATASOURCE_JDBC_URL", database.jdbcUrl());
            environment.put("QUARKUS_DATASOURCE_REACTIVE_URL", database.reactiveUrl());
            environment.put("QUARKUS_DATASOURCE_USERNAME", database.user());
            environment.put("QUARKUS_DATASOURCE_PASSWORD", database.password());
        }
        return environment;
    }

    /**
     * The data of the rendered ConfigMap or Secret of that name (a Secret's decoded, its lines
     * joined, as the API server reads kustomize's long values); none when the overlay leaves it to
     * the site.
     */
    private static Map<String, String> data(List<ObjectNode> rendered, String kind, String name) {
        Map<String, String> data = new LinkedHashMap<>();
        rendered.stream().filter(o -> o.path("kind").asText().equals(kind) && o.path("metadata").path("name").asText().equals(name))
                .findFirst().ifPresent(object -> object.path("data").properties().forEach(entry -> data.put(entry.getKey(),
                        kind.equals("Secret") ? new String(Base64.getMimeDecoder().decode(entry.getValue().asText())) : entry.getValue().asText())));
        return data;
    }

    /**
     * The first container of {@code workload} started here as its image starts it: the
     * ENTRYPOINT of {@code root}'s Dockerfile.jvm of the image's service (this JVM for its
     * {@code java}, the packaged jar for the image's), with the container's memory limit as the
     * memory the JVM sizes its heap from ({@code -XX:MaxRAM}, what the limit's cgroup tells it in
     * a pod) and {@code environment}; its output in {@code log}.
     */
    static Process start(Path root, ObjectNode workload, Map<String, String> environment, Path log) throws IOException {
        JsonNode container = workload.path("spec").path("template").path("spec").path("containers").get(0);
        String image = container.path("image").asText();
        String service = image.substring(image.lastIndexOf('/') + 1).split("[:@]")[0];
        String dockerfile = Files.readString(root.resolve(service + "/src/main/docker/Dockerfile.jvm"));
        String entrypoint = dockerfile.substring(dockerfile.lastIndexOf("\nENTRYPOINT ") + "\nENTRYPOINT ".length()).lines().findFirst()
                .orElseThrow();
        List<String> command = new java.util.ArrayList<>();
        for (JsonNode word : new com.fasterxml.jackson.databind.ObjectMapper().readTree(entrypoint)) {
            command.add(switch (word.asText()) {
                case "java" -> ProcessHandle.current().info().command().orElse("java");
                case "/deployments/quarkus-run.jar" -> root.resolve(service + "/target/quarkus-app/quarkus-run.jar").toString();
                default -> word.asText();
            });
        }
        assertThat(command).as(service + "'s image runs the packaged jar").contains(root.resolve(service + "/target/quarkus-app/quarkus-run.jar").toString());
        command.add(1, "-XX:MaxRAM=" + bytes(container.path("resources").path("limits").path("memory").asText()));
        ProcessBuilder process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        process.environment().putAll(environment);
        return process.start();
    }

    /** A Kubernetes memory quantity ({@code 512Mi}, {@code 1Gi}) in bytes. */
    private static long bytes(String quantity) {
        assertThat(quantity).as("a memory limit").matches("\\d+(Mi|Gi)");
        long amount = Long.parseLong(quantity.substring(0, quantity.length() - 2));
        return amount * (quantity.endsWith("Gi") ? 1024L * 1024 * 1024 : 1024L * 1024);
    }

    /** The Job: {@code root}'s packaged load-worker with {@code environment}, until it exits; answers its exit code. */
    static int runJob(Path root, ObjectNode job, Map<String, String> environment) throws IOException, InterruptedException {
        Path log = Path.of("target", "migration-job.log");
        Process process = start(root, job, environment, log);
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the Job did not exit within two minutes: " + log);
        }
        return process.exitValue();
    }

    static int schemaVersion(Connection connection) throws SQLException {
        try (connection; Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT max(version::int) FROM flyway_schema_history WHERE success AND version IS NOT NULL")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    static int newestMigration(Path root) throws IOException {
        try (Stream<Path> migrations = Files.list(root.resolve("store-postgres/src/main/resources/db/migration"))) {
            return migrations.map(path -> path.getFileName().toString()).filter(name -> name.matches("V\\d+__.*\\.sql"))
                    .mapToInt(name -> Integer.parseInt(name.substring(1, name.indexOf("__")))).max().orElseThrow();
        }
    }
}
