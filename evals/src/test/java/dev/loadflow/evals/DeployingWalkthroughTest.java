package dev.loadflow.evals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.loadflow.deploy.Releases;
import dev.loadflow.service.testing.TlsPostgresTestResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static dev.loadflow.evals.ManifestEnvironmentTest.ROOT;
import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/deploying.md's walkthrough ("From nothing to a running release"), its bash blocks run in
 * order as one script: a clone of the repository, the release found by its version, its images'
 * build, the database's roles and logins made with psql, the site's overlay copied and its
 * Secrets' files written, the apply, the Job awaited and every Deployment's rollout; then the
 * next release, the same way. What this machine lacks is played, each part named:
 * <ul>
 * <li>the Git host: a clone of this repository, on which the test makes the next release's commit
 * (the same code under the walkthrough's next version, so the upgrade's steps run; across two
 * releases' code, {@code ManifestUpgradeTest} and {@code RollingUpgradeTest});</li>
 * <li>Docker: {@code scripts/build-images} runs with {@code --dry-run} (no engine here); the
 * containers run as processes of the packaged services, with their image's command;</li>
 * <li>the database's host: psql and the services reach a PostgreSQL that takes TLS only (its
 * certificate checked, {@code verify-full}) at localhost, in place of the site's host name;</li>
 * <li>the cluster: {@code kubectl} reaches a stand-in that renders with the real
 * {@code kubectl kustomize}, refuses objects in a namespace not created and a Job whose template
 * changed under its name (as the API server does), runs a new Job to its end and (re)starts each
 * Deployment whose pod template changed, and answers {@code wait} and {@code rollout status}
 * from the Job's exit code and the services' readiness.</li>
 * </ul>
 * At the end every service runs as the login the walkthrough made for it, over TLS.
 */
class DeployingWalkthroughTest {

    private static final Path KUBECTL = Path.of("/usr/bin/kubectl");
    private static final Path WORK = Path.of("target", "walkthrough").toAbsolutePath();
    private static final String SITE_GIT = "https://git.acme.internal/platform/loadflow.git";

    private final TlsPostgresTestResource database = new TlsPostgresTestResource();
    private final Cluster cluster = new Cluster();

    @AfterEach
    void stop() {
        cluster.close();
        database.stop();
    }

    @Test
    void theWalkthroughTakesATeamFromNothingToARunningReleaseAndThroughTheNext() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(KUBECTL), "kubectl (its kustomize renders the overlays) is not installed");
        String section = section(Files.readString(ROOT.resolve("docs/deploying.md")), "## From nothing to a running release");
        String script = bashBlocks(section);
        String release = variable(script, "RELEASE");
        String next = variable(script, "NEXT");
        assertThat(release).as("the walkthrough deploys the newest release").isEqualTo(Releases.newestRelease(ROOT));

        database.start();
        reset(WORK);
        Files.writeString(WORK.resolve("db-ca.crt"), Files.readString(TlsPostgresTestResource.authority()));
        Files.writeString(WORK.resolve("idp-public-key.pem"), ManifestEnvironmentTest.publicKeyPem());
        Path mirror = mirrorWithTheNextRelease(next);
        Path shims = shims();
        cluster.start();

        Path log = WORK.resolve("walkthrough.log");
        ProcessBuilder bash = new ProcessBuilder("bash", "-c", "set -euo pipefail\n"
                + script.replace(SITE_GIT, mirror.toString()).replace("scripts/build-images ", "scripts/build-images --dry-run "))
                .directory(WORK.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        bash.environment().putAll(Map.of("PATH", shims + ":" + System.getenv("PATH"),
                "LOADFLOW_STANDIN", "http://127.0.0.1:" + cluster.port(), "LOADFLOW_DB_PORT", Integer.toString(TlsPostgresTestResource.port()),
                "TWILIO_AUTH_TOKEN", "walkthrough-twilio", "SMS_ADAPTER_SECRET", "walkthrough-sms",
                "MODEL_API_KEY", "walkthrough-model", "REGISTRY_TOKEN", "walkthrough-registry"));
        Process walk = bash.start();
        assertThat(walk.waitFor(15, TimeUnit.MINUTES)).as("the walkthrough ends (log: " + log + ")").isTrue();
        assertThat(walk.exitValue()).as("the walkthrough's exit code (log: %s):%n%s", log, Files.readString(log)).isZero();

        assertThat(cluster.jobs).as("one Job per release, each run to its end").containsOnlyKeys(
                "loadflow-migrate-" + release + "-jvm", "loadflow-migrate-" + next + "-jvm").allSatisfy((job, exit) -> assertThat(exit).isZero());
        assertThat(cluster.rollouts).as("each Deployment rolled out by each release").hasSize(8);
        try (Connection admin = TlsPostgresTestResource.admin();
             ResultSet rows = admin.createStatement().executeQuery("""
                     SELECT a.usename, bool_and(s.ssl) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
                     WHERE a.datname = 'loadflow' GROUP BY a.usename""")) {
            Map<String, Boolean> logins = new LinkedHashMap<>();
            while (rows.next()) {
                logins.put(rows.getString(1), rows.getBoolean(2));
            }
            assertThat(logins).as("the services' logins, each over TLS only").containsKeys("loadflow_services", "loadflow_console")
                    .allSatisfy((login, tls) -> {
                        assertThat(login).isIn("loadflow_services", "loadflow_retention_login", "loadflow_console");
                        assertThat(tls).as(login).isTrue();
                    });
        }
    }

    /** The text of the {@code ##} section that starts with {@code heading}, up to the next one. */
    private static String section(String doc, String heading) {
        int start = doc.indexOf(heading + "\n");
        assertThat(start).as("docs/deploying.md has the section " + heading).isNotNegative();
        int end = doc.indexOf("\n## ", start + heading.length());
        return doc.substring(start, end < 0 ? doc.length() : end);
    }

    /** The section's bash blocks, one after the other. */
    private static String bashBlocks(String section) {
        StringBuilder script = new StringBuilder();
        Matcher block = Pattern.compile("(?s)```bash\n(.*?)```").matcher(section);
        while (block.find()) {
            script.append(block.group(1));
        }
        assertThat(script).as("the walkthrough's commands").isNotEmpty();
        return script.toString();
    }

    private static String variable(String script, String name) {
        Matcher value = Pattern.compile("(?m)^" + name + "=(\\S+)$").matcher(script);
        assertThat(value.find()).as("the walkthrough sets " + name).isTrue();
        return value.group(1);
    }

    /**
     * The site's Git host: a clone of this repository, with the next release's commit on its
     * main (every pom at version {@code next}), as the project would have made it.
     */
    private static Path mirrorWithTheNextRelease(String next) throws Exception {
        Path mirror = WORK.resolve("mirror");
        git(WORK, "clone", "-q", "--no-local", ROOT.toString(), mirror.toString());
        git(mirror, "checkout", "-q", "-B", "main");
        String own = Releases.pomVersion(mirror);
        try (Stream<Path> poms = Files.walk(mirror)) {
            for (Path pom : poms.filter(p -> p.getFileName().toString().equals("pom.xml")).toList()) {
                Files.writeString(pom, Files.readString(pom).replace("<version>" + own + "</version>", "<version>" + next + "</version>"));
            }
        }
        git(mirror, "-c", "user.name=walkthrough", "-c", "user.email=walkthrough@loadflow.invalid", "commit", "-q", "-am",
                "Release " + next);
        return mirror;
    }

    private static void git(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process git = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(git.waitFor(2, TimeUnit.MINUTES) && git.exitValue() == 0).as("git %s: %s", String.join(" ", args), output).isTrue();
    }

    /** kubectl, which asks the stand-in cluster; psql, which reaches the site's database host at localhost. */
    private static Path shims() throws IOException {
        Path shims = Files.createDirectories(WORK.resolve("bin"));
        Path kubectl = shims.resolve("kubectl");
        Files.writeString(kubectl, """
                #!/usr/bin/env bash
                # kubectl as the walkthrough test's stand-in cluster answers it
                response=$(printf '%s\\0' "$@" | curl -s --data-binary @- -H "X-Dir: $PWD" -w '\\n%{http_code}' "$LOADFLOW_STANDIN/kubectl")
                code=${response##*$'\\n'}
                body=${response%$'\\n'*}
                [ -z "$body" ] || printf '%s\\n' "$body"
                [ "$code" = 200 ]
                """);
        Path psql = shims.resolve("psql");
        Files.writeString(psql, """
                #!/usr/bin/env bash
                # psql, the site's database host reached at localhost
                args=()
                for arg in "$@"; do args+=("${arg//host=loadflow-db.acme.internal port=5433/host=localhost port=$LOADFLOW_DB_PORT}"); done
                exec /usr/bin/psql "${args[@]}"
                """);
        kubectl.toFile().setExecutable(true);
        psql.toFile().setExecutable(true);
        return shims;
    }

    private static void reset(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> old = Files.walk(dir)) {
                old.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
        Files.createDirectories(dir);
    }

    /**
     * The cluster's part: what {@code kubectl} asks of it, answered as the API server and the
     * kubelet would for these commands, the pods being processes of the packaged services.
     */
    private static final class Cluster implements AutoCloseable {

        final Map<String, Integer> jobs = new LinkedHashMap<>();
        final List<String> rollouts = new ArrayList<>();
        private final Set<String> namespaces = new TreeSet<>();
        private final Set<String> secrets = new TreeSet<>();
        private final Map<String, JsonNode> jobTemplates = new LinkedHashMap<>();
        private final Map<String, JsonNode> podTemplates = new LinkedHashMap<>();
        private final Map<String, Process> pods = new LinkedHashMap<>();
        private final Map<String, Integer> managementPorts = new LinkedHashMap<>();
        private final HttpClient http = HttpClient.newHttpClient();
        private HttpServer server;

        void start() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/kubectl", this::kubectl);
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        private void kubectl(HttpExchange exchange) throws IOException {
            List<String> args = new ArrayList<>(List.of(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8).split("\0")));
            Path dir = Path.of(exchange.getRequestHeaders().getFirst("X-Dir"));
            String namespace = null;
            int n = args.indexOf("-n");
            if (n >= 0) {
                namespace = args.get(n + 1);
                args.subList(n, n + 2).clear();
            }
            int status;
            String answer;
            try {
                answer = answer(args, dir, namespace);
                status = 200;
            } catch (Refused refused) {
                answer = "Error from server: " + refused.getMessage();
                status = 422;
            } catch (Exception e) {
                answer = "the stand-in cluster failed: " + e;
                status = 500;
            }
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        }

        private String answer(List<String> args, Path dir, String namespace) throws Exception {
            String command = String.join(" ", args);
            if (command.startsWith("create namespace ")) {
                namespaces.add(args.get(2));
                return "namespace/" + args.get(2) + " created";
            }
            if (command.startsWith("label namespace ")) {
                return "namespace/" + args.get(2) + " labeled";
            }
            if (command.startsWith("create secret docker-registry ")) {
                within(namespace);
                List<String> real = new ArrayList<>(List.of(KUBECTL.toString()));
                real.addAll(args);
                real.addAll(List.of("--dry-run=client", "-o", "name"));
                run(real, dir);
                secrets.add(namespace + "/" + args.get(3));
                return "secret/" + args.get(3) + " created";
            }
            if (command.startsWith("apply -k ")) {
                return apply(dir.resolve(args.get(2)));
            }
            if (command.startsWith("wait --for=condition=complete job/")) {
                String job = args.get(2).substring("job/".length());
                if (!Integer.valueOf(0).equals(jobs.get(job))) {
                    throw new Refused("job " + job + ": not complete (exit " + jobs.get(job) + ")");
                }
                return "job.batch/" + job + " condition met";
            }
            if (command.startsWith("rollout status deployment/")) {
                String deployment = args.get(2).substring("deployment/".length());
                await().atMost(Duration.ofSeconds(120)).until(() -> ManifestEnvironmentTest.ready(http, managementPorts.get(deployment)) == 200);
                rollouts.add(deployment);
                return "deployment \"" + deployment + "\" successfully rolled out";
            }
            throw new IllegalArgumentException("the stand-in does not run: kubectl " + command);
        }

        private void within(String namespace) throws Refused {
            if (namespace == null || !namespaces.contains(namespace)) {
                throw new Refused("namespaces \"" + namespace + "\" not found");
            }
        }

        /** The overlay rendered by the real kubectl kustomize, then applied object by object. */
        private String apply(Path overlay) throws Exception {
            Path rendered = Files.createTempFile(WORK, "applied", ".yaml");
            Files.writeString(rendered, run(List.of(KUBECTL.toString(), "kustomize", overlay.toString()), overlay));
            List<ObjectNode> objects = new ArrayList<>();
            try (var documents = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readerFor(ObjectNode.class)
                    .<ObjectNode>readValues(rendered.toFile())) {
                documents.forEachRemaining(objects::add);
            }
            for (ObjectNode object : objects) {
                within(object.path("metadata").path("namespace").asText(null));
            }
            StringBuilder answer = new StringBuilder();
            String database = "//localhost:" + TlsPostgresTestResource.port() + "/loadflow";
            for (ObjectNode job : objects.stream().filter(o -> o.path("kind").asText().equals("Job")).toList()) {
                String name = job.path("metadata").path("name").asText();
                JsonNode template = job.path("spec").path("template");
                pulls(job);
                if (jobTemplates.containsKey(name)) {
                    if (!jobTemplates.get(name).equals(template)) {
                        throw new Refused("Job.batch \"" + name + "\" is invalid: spec.template: field is immutable");
                    }
                    continue;
                }
                jobTemplates.put(name, template);
                Map<String, String> environment = ManifestEnvironmentTest.environment(objects, job, name, null, database);
                environment.put("QUARKUS_HTTP_PORT", "0");
                environment.put("QUARKUS_MANAGEMENT_PORT", "0");
                jobs.put(name, ManifestEnvironmentTest.runJob(ROOT, job, environment));
                answer.append("job.batch/").append(name).append(" created\n");
            }
            for (ObjectNode deployment : objects.stream().filter(o -> o.path("kind").asText().equals("Deployment")).toList()) {
                String name = deployment.path("metadata").path("name").asText();
                JsonNode template = deployment.path("spec").path("template");
                pulls(deployment);
                if (template.equals(podTemplates.get(name))) {
                    continue;
                }
                Process old = pods.remove(name);
                if (old != null) {
                    old.destroy();
                    old.waitFor(60, TimeUnit.SECONDS);
                }
                Map<String, String> environment = ManifestEnvironmentTest.environment(objects, deployment, name, null, database);
                int management = ManifestEnvironmentTest.freePort();
                environment.put("QUARKUS_MANAGEMENT_PORT", Integer.toString(management));
                environment.put("QUARKUS_HTTP_PORT", Integer.toString(ManifestEnvironmentTest.freePort()));
                podTemplates.put(name, template);
                managementPorts.put(name, management);
                pods.put(name, ManifestEnvironmentTest.start(ROOT, deployment, environment,
                        WORK.resolve(name + "-" + podTemplates.size() + "-" + jobs.size() + ".log")));
                answer.append("deployment.apps/").append(name).append(" configured\n");
            }
            return answer.toString().strip();
        }

        /** The pod's image pull Secrets exist in its namespace, or the kubelet could not pull its image. */
        private void pulls(ObjectNode workload) throws Refused {
            for (JsonNode secret : workload.path("spec").path("template").path("spec").path("imagePullSecrets")) {
                String named = workload.path("metadata").path("namespace").asText() + "/" + secret.path("name").asText();
                if (!secrets.contains(named)) {
                    throw new Refused(workload.path("metadata").path("name").asText() + ": ErrImagePull, no pull Secret " + named);
                }
            }
        }

        private static String run(List<String> command, Path dir) throws Exception {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
                throw new Refused(String.join(" ", command) + ": " + output);
            }
            return output;
        }

        @Override
        public void close() {
            if (server != null) {
                server.stop(0);
            }
            pods.values().forEach(Process::destroy);
            for (Process pod : pods.values()) {
                try {
                    pod.waitFor(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** What the API server or the kubelet would refuse. */
    private static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }
}
