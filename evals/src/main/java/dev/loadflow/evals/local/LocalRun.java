package dev.loadflow.evals.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.json.JsonReader;
import io.smallrye.jwt.build.Jwt;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * The local run: PostgreSQL (embedded, or the server {@code QUARKUS_DATASOURCE_JDBC_URL}
 * names), the channel simulator on :8090, the three packaged services on their ports
 * (8081, 8082, 8083), then the demo story played through the ingest API with client A's
 * retry-after shortened to 15 seconds. The story is told the way production callers would:
 * a source ingests with its token, an operator reads the load and a viewer its timers, with
 * JWTs signed by a key pair made at start (only its public key is written, under
 * {@code evals/target/local-run}). Everything keeps running for the admin API and the
 * management ports (health, metrics) until Ctrl-C, which stops every process it started.
 *
 * <p>{@code --exit-after-demo} stops everything once the story has been told (for CI).
 */
public final class LocalRun {

    private static final String LOAD = "481207";
    private static final Duration RETRY_AFTER = Duration.ofSeconds(15);
    private static final String ADMIN_TOKEN = "local-admin-token";
    private static final String SOURCE = "local-demo";
    private static final String ISSUER = "loadflow";
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final PrintStream OUT = System.out;
    /** Only for the wall-clock times printed beside each step. */
    private static final java.time.Clock WALL = java.time.Clock.systemDefaultZone();

    private final List<Process> services = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private EmbeddedPostgres embedded;
    private ChannelSimulator simulator;
    private final String ingestToken = randomToken();
    private final KeyPair keys = rsa();
    private String viewer;
    private String operator;

    public static void main(String[] args) throws Exception {
        boolean exitAfterDemo = List.of(args).contains("--exit-after-demo");
        LocalRun run = new LocalRun();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            run.stop();
            stopped.countDown();
        }, "local-run-stop"));
        try {
            run.start();
            run.demo();
        } catch (Exception e) {
            OUT.println("local run failed: " + e.getMessage());
            System.exit(1);
        }
        if (exitAfterDemo) {
            System.exit(0);
        }
        run.printCredentials();
        stopped.await();
    }

    private void start() throws Exception {
        Path root = Path.of(System.getProperty("loadflow.root", ".")).toAbsolutePath().normalize();
        String jdbc = System.getenv("QUARKUS_DATASOURCE_JDBC_URL");
        String user = env("QUARKUS_DATASOURCE_USERNAME", "postgres");
        String password = env("QUARKUS_DATASOURCE_PASSWORD", "");
        String hostPort;
        if (jdbc == null || jdbc.isBlank()) {
            embedded = EmbeddedPostgres.builder().start();
            hostPort = "127.0.0.1:" + embedded.getPort();
            password = "postgres";
            step("PostgreSQL: embedded, on port %d", embedded.getPort());
        } else {
            URI uri = URI.create(jdbc.substring("jdbc:".length()));
            hostPort = uri.getHost() + ":" + (uri.getPort() < 0 ? 5432 : uri.getPort());
            step("PostgreSQL: %s", hostPort);
        }
        String database = "loadflow_local";
        recreate("jdbc:postgresql://" + hostPort + "/postgres", user, password, database);

        Path publicKey = root.resolve("evals/target/local-run/jwt-public.pem");
        Files.createDirectories(publicKey.getParent());
        Files.writeString(publicKey, "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(keys.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");
        viewer = jwt("local-viewer", "loadflow-viewer");
        operator = jwt("local-operator", "loadflow-operator");
        step("callers: source %s with a fresh ingest token; JWTs verified with %s", SOURCE, root.relativize(publicKey));

        simulator = ChannelSimulator.start(8090, OUT);
        step("channel simulator on :8090 (SMS, Hero tasks, Hero Slack; dedupes on Idempotency-Key)");

        for (String[] service : new String[][]{{"load-worker", "8081"}, {"outbox-dispatcher", "8082"}, {"timer-pump", "8083"}}) {
            File jar = root.resolve(service[0]).resolve("target/quarkus-app/quarkus-run.jar").toFile();
            if (!jar.isFile()) {
                throw new IllegalStateException(jar + " is missing: build first with ./mvnw -B package -DskipTests");
            }
            ProcessBuilder pb = new ProcessBuilder(javaBin(), "-Xmx256m",
                    "-Dquarkus.http.port=" + service[1],
                    "-Dquarkus.datasource.reactive.url=postgresql://" + hostPort + "/" + database,
                    "-Dquarkus.datasource.jdbc.url=jdbc:postgresql://" + hostPort + "/" + database,
                    "-Dquarkus.datasource.username=" + user,
                    "-Dquarkus.datasource.password=" + password,
                    "-Dloadflow.admin.token=" + ADMIN_TOKEN,
                    "-Dloadflow.ingest.tokens=" + SOURCE + ":" + ingestToken,
                    "-Dmp.jwt.verify.publickey.location=" + publicKey,
                    "-Dmp.jwt.verify.issuer=" + ISSUER,
                    "-Dloadflow.sop.clients.client-a.retry-after=" + RETRY_AFTER,
                    "-Dloadflow.channels.sms.url=http://127.0.0.1:8090/sms",
                    "-Dloadflow.channels.hero.url=http://127.0.0.1:8090/hero",
                    "-Dloadflow.channels.slack.url=http://127.0.0.1:8090/slack",
                    "-Dquarkus.log.level=WARN",
                    // traces go to the collector QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT names, when it names one
                    "-Dquarkus.otel.sdk.disabled=" + (System.getenv("QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT") == null),
                    "-jar", jar.getPath());
            Path logFile = root.resolve(service[0]).resolve("target/local-run.log");
            pb.redirectErrorStream(true).redirectOutput(logFile.toFile());
            services.add(pb.start());
            step("%s starting on :%s (log: %s)", service[0], service[1], root.relativize(logFile));
        }
        for (String port : List.of("9081", "9082", "9083")) {
            awaitReady(port);
        }
        step("all three services ready");
    }

    private void demo() throws Exception {
        OUT.printf("%n== the demo story of load %s (client A, retry-after %ss instead of 30 min) ==%n",
                LOAD, RETRY_AFTER.toSeconds());
        ingest("LoadAssigned", """
                {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:55:00Z",
                 "payload": {"clientId": "client-a", "driverPhone": "+15550100", "stage": "dispatched"}}""");
        ingest("a high-risk LocationPing", """
                {"eventId": "ping_0700", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z", "correlationId": "demo-1",
                 "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""");
        awaitDeliveries("sms", 1, Duration.ofSeconds(20));
        step("…the driver does not answer; the timer fires after %ss", RETRY_AFTER.toSeconds());
        awaitDeliveries("sms", 2, RETRY_AFTER.plusSeconds(20));
        ingest("the driver's answer (InboundSms)", """
                {"eventId": "sms_0715", "type": "InboundSms", "occurredAt": "2026-11-30T07:15:00Z",
                 "payload": {"from": "+15550100", "text": "ETA 9:30, traffic on I-90"}}""");
        awaitDeliveries("slack", 1, Duration.ofSeconds(20));
        Thread.sleep(1_500);

        JsonNode load = JsonReader.parse(get("http://127.0.0.1:8081/loads/" + LOAD, operator)).node();
        OUT.printf("%n== GET /loads/%s: version %d, open asks %d, closed %s ==%n", LOAD, load.path("version").asLong(),
                load.path("state").path("openAsks").size(), load.path("state").path("closedAsks"));
        for (JsonNode entry : load.path("log")) {
            JsonNode body = entry.path("body");
            String detail = entry.path("kind").asText().equals("decision")
                    ? (body.path("filtered").asBoolean() ? "filtered: " : "") + body.path("reason").asText()
                    : entry.path("entryId").asText();
            OUT.printf("%4d  %-17s %s%n", entry.path("seq").asLong(), entry.path("type").asText(), detail);
        }
        String timers = get("http://127.0.0.1:8083/admin/timers?loadId=" + LOAD, viewer);
        OUT.printf("%n== GET /admin/timers?loadId=%s (timer-pump) ==%n", LOAD);
        for (JsonNode t : JsonReader.parse(timers).node().path("timers")) {
            OUT.printf("  %s  %s  fire at %s%n", t.path("timerId").asText(), t.path("status").asText(), t.path("fireAt").asText());
        }
    }

    private void ingest(String what, String json) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:8081/loads/" + LOAD + "/events"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + ingestToken).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        step("POST %s → %d %s", what, response.statusCode(), response.body());
    }

    private void awaitDeliveries(String channel, int count, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (simulator.delivered(channel).size() < count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no " + channel + " delivery #" + count + " within " + within);
            }
            Thread.sleep(100);
        }
    }

    private void awaitReady(String port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            for (Process p : services) {
                if (!p.isAlive()) {
                    throw new IllegalStateException("a service exited with " + p.exitValue() + "; see target/local-run.log");
                }
            }
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the service on :" + port + " was not ready within 90 s");
    }

    /** Tells how to call each service by hand while they run. */
    private void printCredentials() {
        OUT.printf("""

                Everything keeps running until Ctrl-C: the API on :8081, :8082, :8083; health and metrics
                on :9081, :9082, :9083 (/q/health, /q/metrics); the channel simulator on :8090.
                Credentials of this run (the JWTs are valid for 12 hours):
                  export INGEST_TOKEN=%s
                  export VIEWER=%s
                  export OPERATOR=%s
                Try them:
                  curl -s -H "Authorization: Bearer $INGEST_TOKEN" -H 'content-type: application/json' localhost:8081/loads/%s/events \\
                       -d '{"eventId":"ping_0800","type":"LocationPing","occurredAt":"2026-11-30T08:00:00Z","payload":{"risk":"low","lat":41.9,"lon":-87.6}}'
                  curl -s -H "Authorization: Bearer $VIEWER" localhost:8081/loads/%s | jq .state
                  curl -s -H "Authorization: Bearer $VIEWER" localhost:8082/admin/outbox/dead | jq .
                  curl -s -H "Authorization: Bearer $OPERATOR" -X POST 'localhost:8082/admin/outbox/replay?loadId=%s&limit=50&dryRun=true' | jq .
                  curl -s -H "Authorization: Bearer $VIEWER" localhost:8081/admin/loads/held | jq .
                  curl -s localhost:9082/q/metrics | grep loadflow_outbox_sends_total
                The break-glass token is %s.
                """, ingestToken, viewer, operator, LOAD, LOAD, LOAD, ADMIN_TOKEN);
    }

    private String jwt(String subject, String group) {
        return Jwt.issuer(ISSUER).subject(subject).groups(Set.of(group)).expiresIn(Duration.ofHours(12).toSeconds())
                .sign(keys.getPrivate());
    }

    private static KeyPair rsa() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String randomToken() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private String get(String url, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static void recreate(String adminUrl, String user, String password, String database) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl, user, password); var sql = c.createStatement()) {
            try (ResultSet exists = sql.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'")) {
                if (exists.next()) {
                    sql.execute("DROP DATABASE " + database + " WITH (FORCE)");
                }
            }
            sql.execute("CREATE DATABASE " + database);
        }
    }

    /** Stops every process it started: the services (SIGTERM, then kill), the simulator, PostgreSQL. */
    private synchronized void stop() {
        for (Process p : services) {
            p.destroy();
        }
        for (Process p : services) {
            try {
                if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
        services.clear();
        if (simulator != null) {
            simulator.close();
            simulator = null;
        }
        if (embedded != null) {
            try {
                embedded.close();
            } catch (IOException ignored) {
                // its data lives in a temporary folder that goes with it
            }
            embedded = null;
        }
        OUT.println("stopped: services, simulator and PostgreSQL");
    }

    private static void step(String format, Object... args) {
        OUT.printf("%s  %s%n", LocalTime.now(WALL).format(CLOCK), String.format(format, args));
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }

}
