package dev.loadflow.evals.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.evals.sim.ChannelSimulator;
import dev.loadflow.model.json.JsonReader;
import io.smallrye.jwt.build.Jwt;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import dev.loadflow.service.health.DistributeOnCitus;
import org.flywaydb.core.Flyway;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * The local run: PostgreSQL (embedded, or the server {@code QUARKUS_DATASOURCE_JDBC_URL}
 * names), the channel simulator on :8090, the three packaged services on their ports
 * (8081, 8082, 8083) and the operator console on :8084, then the demo story played through the
 * ingest API with client A's retry-after shortened to 15 seconds. The story is told the way production callers would:
 * a source ingests with its token, an operator reads the load and a viewer its timers, with
 * JWTs signed by a key pair made at start (only its public key is written, under
 * {@code evals/target/local-run}). Everything keeps running for the admin API and the
 * management ports (health, metrics) until Ctrl-C, which stops every process it started.
 *
 * <p>{@code --exit-after-demo} stops everything once the story has been told (for CI).
 */
public final class LocalRun {

    /** The demo story's load. */
    public static final String LOAD = "481207";
    /** The login role the console reads the database with (a member of {@code loadflow_reader}). */
    private static final String CONSOLE_ROLE = "loadflow_console";
    /** The login role the three services connect as: a member of loadflow_app, as in production. */
    private static final String SERVICES_ROLE = "loadflow_services";
    /** The login retention runs under, a member of loadflow_retention (the services' own may not remove from the log). */
    private static final String RETENTION_ROLE = "loadflow_retention_login";
    private static final String SOURCE = "local-demo";
    private static final String ISSUER = "loadflow";
    private static final String AUDIENCE = "loadflow";
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final PrintStream OUT = System.out;
    /** Only for the wall-clock times printed beside each step. */
    private static final java.time.Clock WALL = java.time.Clock.systemDefaultZone();

    /**
     * How to run: the repository's root (where the packaged services are); the ports, the local
     * run's plus {@code portOffset} (so a test's stack does not meet a local run); client A's
     * retry-after; extra {@code -D} options for the load-worker; whether the console runs; whether
     * the channel simulator prints each message it receives (a benchmark's thousands would cost
     * the load generator's CPU); whether the channels are the providers' APIs; where the schema's
     * migrations come from (a Flyway location: this build's, or an earlier release's for an upgrade);
     * extra {@code -D} options for each engine service.
     */
    public record Options(Path root, int portOffset, Duration retryAfter, List<String> workerOptions, boolean console,
                          boolean printDeliveries, boolean providers, String migrations, List<String> engineOptions) {

        /** This build's migrations. */
        public static final String MIGRATIONS = "classpath:db/migration";

        public Options(Path root, int portOffset, Duration retryAfter, List<String> workerOptions, boolean console,
                       boolean printDeliveries, boolean providers) {
            this(root, portOffset, retryAfter, workerOptions, console, printDeliveries, providers, MIGRATIONS, List.of());
        }

        public Options(Path root, int portOffset, Duration retryAfter, List<String> workerOptions, boolean console,
                       boolean printDeliveries) {
            this(root, portOffset, retryAfter, workerOptions, console, printDeliveries, false);
        }

        public Options(Path root, int portOffset, Duration retryAfter, List<String> workerOptions, boolean console) {
            this(root, portOffset, retryAfter, workerOptions, console, true);
        }

        /** With the console. */
        public Options(Path root, int portOffset, Duration retryAfter, List<String> workerOptions) {
            this(root, portOffset, retryAfter, workerOptions, true);
        }

        /**
         * The local run's: {@code ./run-local} names the repository's root in {@code loadflow.root};
         * with {@code providers}, SMS goes through Twilio's API and Hero Slack through Slack's (both
         * the simulator's), and the driver answers through Twilio's signed webhook.
         */
        static Options local(boolean providers) {
            return new Options(Path.of(System.getProperty("loadflow.root", ".")), 0, Duration.ofSeconds(15), List.of(), true,
                    true, providers);
        }

        /** These options with the services of the release at {@code root} and its migrations (an upgrade's starting point). */
        public Options release(Path root) {
            return new Options(root, portOffset, retryAfter, workerOptions, console, printDeliveries, providers,
                    "filesystem:" + root.resolve("store-postgres/src/main/resources/db/migration").toAbsolutePath(),
                    engineOptions);
        }

        /** These options with extra {@code -D} options for each of the three engine services (e.g. shorter leases). */
        public Options engine(List<String> options) {
            return new Options(root, portOffset, retryAfter, workerOptions, console, printDeliveries, providers, migrations,
                    List.copyOf(options));
        }
    }

    private final Options options;
    private final List<Process> services = new ArrayList<>();
    private final Map<String, Long> pids = new LinkedHashMap<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private final String consolePassword = randomToken();
    private final String servicesPassword = randomToken();
    private final String retentionPassword = randomToken();
    private String jdbcUrl;
    /** The JDBC URL the services use: {@link #jdbcUrl}, or its route ({@link #databaseVia}). */
    private String servicesJdbcUrl;
    private java.util.function.UnaryOperator<String> databaseRoute = java.util.function.UnaryOperator.identity();
    /** On a Citus coordinator, the schema this run's tables are in (Citus keeps its metadata per database); else null. */
    private String schema;
    private String dbUser;
    private String dbPassword;
    private EmbeddedPostgres embedded;
    private ChannelSimulator simulator;
    private final String ingestToken = randomToken();
    /** The simulated Twilio account's auth token: it signs the driver's webhook and authenticates the SMS sends. */
    private final String twilioToken = randomToken();
    /** The break-glass token of this run: made anew each run, so no run's token opens another's services. */
    private final String adminToken = randomToken();
    private final KeyPair keys = rsa();
    private String viewer;
    private String operator;
    /** What every service is started with (database, tokens, JWT key, logging, tracing). */
    private List<String> commonArgs;
    /** What the three engine services are started with beyond {@link #commonArgs}. */
    private List<String> engineArgs;
    /** The services {@link #start} started, of the release at the options' root. */
    private Engine engine;

    public static void main(String[] args) throws Exception {
        boolean exitAfterDemo = List.of(args).contains("--exit-after-demo");
        LocalRun run = new LocalRun(Options.local(List.of(args).contains("--providers")));
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

    public LocalRun(Options options) {
        this.options = options;
    }

    private int port(int localPort) {
        return localPort + options.portOffset();
    }

    /** The console's address. */
    /**
     * Before {@link #start}: the services reach the database's {@code host:port} through what
     * {@code route} makes of it (a link a test can stall or reset); the migrations and the test's
     * own reads go straight to it.
     */
    public LocalRun databaseVia(java.util.function.UnaryOperator<String> route) {
        this.databaseRoute = route;
        return this;
    }

    public String consoleUrl() {
        return "http://127.0.0.1:" + port(8084);
    }

    /** The demo source's ingest token. */
    public String ingestToken() {
        return ingestToken;
    }

    /** The port a service listens on here that listens on {@code localPort} in the local run (8081 → 8081 + offset). */
    public int portOf(int localPort) {
        return port(localPort);
    }

    /**
     * The run's database as a libpq URL, for {@code psql}, {@code pg_dump} and {@code pg_restore};
     * on a Citus coordinator, its database with the run's schema first on the search path.
     */
    public String databaseUrl() {
        String url = "postgresql://" + URLEncoder.encode(dbUser, StandardCharsets.UTF_8)
                + (dbPassword.isEmpty() ? "" : ":" + URLEncoder.encode(dbPassword, StandardCharsets.UTF_8))
                + "@" + jdbcUrl.substring("jdbc:postgresql://".length());
        return schema == null ? url : url.replace("?currentSchema=" + schema, "?options=-csearch_path%3D" + schema);
    }

    /** A JWT of {@code local-operator} (loadflow-operator). */
    public String operator() {
        return operator;
    }

    /** A JWT of {@code local-viewer} (loadflow-viewer). */
    public String viewer() {
        return viewer;
    }

    /** The process id of each service started, by name. */
    public Map<String, Long> pids() {
        return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(pids));
    }

    /** The channel simulator the services send to. */
    public ChannelSimulator simulator() {
        return simulator;
    }

    /**
     * Sends one event of {@code loadId} to the ingest API as the demo's source, quietly.
     *
     * @return the answer's status
     */
    public int post(HttpClient client, String loadId, String json) throws IOException, InterruptedException {
        return post(client, port(8081), loadId, json);
    }

    private int post(HttpClient client, int port, String loadId, String json) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/loads/" + loadId + "/events"))
                        .header("Content-Type", "application/json").header("Authorization", "Bearer " + ingestToken)
                        .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /**
     * As {@link #post(HttpClient, String, String)} without blocking, on Vert.x's HTTP client: a
     * load generator's, a small share of the machine it shares with what it measures.
     *
     * @param sending called as the request gets its connection, just before it is written (the
     *                time a latency is measured from: waiting for one of the client's connections
     *                is the generator's, not the system's)
     * @return the answer's status, once its body is read
     */
    public Future<Integer> post(io.vertx.core.http.HttpClient client, String loadId, String json, Runnable sending) {
        return client.request(new RequestOptions().setMethod(HttpMethod.POST)
                        .setHost("127.0.0.1").setPort(port(8081)).setURI("/loads/" + loadId + "/events")
                        .putHeader("Content-Type", "application/json").putHeader("Authorization", "Bearer " + ingestToken))
                .compose(request -> {
                    sending.run();
                    // the body asked for in the send's own continuation, as the dispatcher's transport does
                    return request.send(json).compose(response -> response.body().map(body -> response.statusCode()));
                });
    }

    /** Counts with one SQL query, as the database's owner. */
    public long count(String query) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, dbUser, dbPassword); var sql = c.createStatement();
             ResultSet rs = sql.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Runs one SQL query as the database's owner; each row as column → value, in the query's order. */
    public List<Map<String, Object>> rows(String query) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, dbUser, dbPassword); var sql = c.createStatement();
             ResultSet rs = sql.executeQuery(query)) {
            List<Map<String, Object>> rows = new ArrayList<>();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
                }
                rows.add(row);
            }
            return rows;
        }
    }

    /** Runs SQL as the database's owner: for what no API offers (a test's poison message). */
    public void sql(String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, dbUser, dbPassword); var sql = c.createStatement()) {
            sql.execute(statement);
        }
    }

    /** Starts PostgreSQL, the simulator, the three services and the console, and waits until all are ready. */
    public void start() throws Exception {
        Path root = options.root().toAbsolutePath().normalize();
        String jdbc = System.getenv("QUARKUS_DATASOURCE_JDBC_URL");
        String user = env("QUARKUS_DATASOURCE_USERNAME", "postgres");
        String password = env("QUARKUS_DATASOURCE_PASSWORD", "");
        String hostPort;
        String adminDatabase = "postgres";
        if (jdbc == null || jdbc.isBlank()) {
            embedded = EmbeddedPostgres.builder().start();
            hostPort = "127.0.0.1:" + embedded.getPort();
            password = "postgres";
            step("PostgreSQL: embedded, on port %d", embedded.getPort());
        } else {
            URI uri = URI.create(jdbc.substring("jdbc:".length()));
            hostPort = uri.getHost() + ":" + (uri.getPort() < 0 ? 5432 : uri.getPort());
            if (uri.getPath() != null && uri.getPath().length() > 1) {
                adminDatabase = uri.getPath().substring(1);
            }
            step("PostgreSQL: %s", hostPort);
        }
        String servicesHostPort = databaseRoute.apply(hostPort);
        String database = options.portOffset() == 0 ? "loadflow_local" : "loadflow_local_" + options.portOffset();
        String adminUrl = "jdbc:postgresql://" + hostPort + "/" + adminDatabase;
        String reactiveUrl;
        List<String> schemaArgs = List.of();
        if (hasCitus(adminUrl, user, password)) {
            // a Citus coordinator: the run's tables in a schema of its database, distributed by the migrations
            schema = database;
            recreateSchema(adminUrl, user, password, schema);
            jdbcUrl = adminUrl + "?currentSchema=" + schema;
            reactiveUrl = "postgresql://" + servicesHostPort + "/" + adminDatabase;
            // the services set Citus's session settings themselves (PoolWithoutAcquireTimer)
            schemaArgs = List.of("-Dloadflow.db.schema=" + schema, "-Dloadflow.db.citus=true");
            step("Citus: this run's tables in schema %s of database %s, distributed by load", schema, adminDatabase);
        } else {
            recreate(adminUrl, user, password, database);
            jdbcUrl = "jdbc:postgresql://" + hostPort + "/" + database;
            reactiveUrl = "postgresql://" + servicesHostPort + "/" + database;
        }
        servicesJdbcUrl = jdbcUrl.replace("//" + hostPort + "/", "//" + servicesHostPort + "/");
        dbUser = user;
        dbPassword = password;

        // a run of its own ports has a key file of its own: two test stacks side by side (a fork
        // each) would otherwise overwrite each other's key, and their services refuse the JWTs
        Path publicKey = root.resolve(options.portOffset() == 0 ? "evals/target/local-run/jwt-public.pem"
                : "evals/target/local-run-" + options.portOffset() + "/jwt-public.pem");
        Files.createDirectories(publicKey.getParent());
        Files.writeString(publicKey, "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(keys.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");
        viewer = jwt("local-viewer", "loadflow-viewer");
        operator = jwt("local-operator", "loadflow-operator");
        step("callers: source %s with a fresh ingest token; JWTs verified with %s", SOURCE, root.relativize(publicKey));

        simulator = ChannelSimulator.start(port(8090), options.printDeliveries() ? OUT : null);
        step("channel simulator on :%d (SMS, Hero tasks, Hero Slack; dedupes on Idempotency-Key)", port(8090));

        String simulatorUrl = "http://127.0.0.1:" + port(8090);
        String otlp = Optional.ofNullable(System.getenv("QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT"))
                .orElse(System.getProperty("loadflow.local.otlp-endpoint"));
        List<String> common = new ArrayList<>(List.of(
                "-Dquarkus.datasource.reactive.url=" + reactiveUrl,
                "-Dquarkus.datasource.jdbc.url=" + servicesJdbcUrl,
                "-Dloadflow.admin.token=" + adminToken,
                // reachable from this machine only: the API and the management interface alike
                "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.management.host=127.0.0.1",
                "-Dmp.jwt.verify.publickey.location=" + publicKey,
                "-Dmp.jwt.verify.issuer=" + ISSUER,
                "-Dquarkus.log.level=WARN",
                // traces go to the collector QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT names (or loadflow.local.otlp-endpoint,
                // a benchmark's own), when one is named
                "-Dquarkus.otel.sdk.disabled=" + (otlp == null),
                "-Dquarkus.otel.exporter.otlp.endpoint=" + (otlp == null ? "http://127.0.0.1:4317" : otlp)));
        common.addAll(schemaArgs);
        // as on Kubernetes: the migrations run as the schema's owner (here, as the Job would), and the services connect
        // as a member of loadflow_app (made by migration V20: no DDL, the audit trail insert-only)
        flyway(options.migrations()).migrate();
        step("schema migrated as %s", user);
        sql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + SERVICES_ROLE + "') THEN CREATE ROLE "
                + SERVICES_ROLE + " LOGIN IN ROLE loadflow_app; END IF; END $$");
        sql("ALTER ROLE " + SERVICES_ROLE + " PASSWORD '" + servicesPassword + "'");
        // loadflow_retention is made by V36; an earlier release's schema (a rolling upgrade's start) has none yet
        sql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'loadflow_retention') THEN "
                + "CREATE ROLE loadflow_retention NOLOGIN; END IF; END $$");
        sql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + RETENTION_ROLE + "') THEN CREATE ROLE "
                + RETENTION_ROLE + " LOGIN IN ROLE loadflow_retention; END IF; END $$");
        sql("ALTER ROLE " + RETENTION_ROLE + " PASSWORD '" + retentionPassword + "'");
        List<String> engine = List.of(
                "-Dquarkus.datasource.username=" + SERVICES_ROLE,
                "-Dquarkus.datasource.password=" + servicesPassword,

                "-Dloadflow.db.migrate-at-start=false",
                "-Dloadflow.ingest.tokens=" + SOURCE + ":" + ingestToken,

                "-Dloadflow.sop.clients.client-a.retry-after=" + options.retryAfter(),
                "-Dloadflow.channels.sms.url=" + simulatorUrl + "/sms",
                "-Dloadflow.channels.hero.url=" + simulatorUrl + "/hero",
                "-Dloadflow.channels.slack.url=" + simulatorUrl + "/slack");
        if (options.providers()) {
            // the providers' own APIs, the simulator's: Twilio for SMS (no idempotency key), Slack's Web API
            engine = new ArrayList<>(engine);
            engine.addAll(List.of(
                    "-Dloadflow.channels.sms.provider=twilio",
                    "-Dloadflow.channels.sms.twilio.api-url=" + simulatorUrl + "/twilio",
                    "-Dloadflow.channels.sms.twilio.account-sid=" + TWILIO_ACCOUNT,
                    "-Dloadflow.channels.sms.twilio.auth-token=" + twilioToken,
                    "-Dloadflow.channels.sms.twilio.from=+15557770000",
                    "-Dloadflow.channels.slack.provider=slack-api",
                    "-Dloadflow.channels.slack.api-url=" + simulatorUrl + "/slack-api",
                    "-Dloadflow.channels.slack.bot-token=xoxb-local-" + randomToken(),
                    "-Dloadflow.sources.twilio.auth-token=" + twilioToken,
                    "-Dloadflow.sources.twilio.webhook-url=" + twilioWebhook(),
                    // each message's status reported to the worker, naming its row: which message is whose
                    "-Dloadflow.channels.sms.twilio.status-callback=http://127.0.0.1:" + port(8081) + "/sources/twilio/status"));
            simulator.statusCallbacks(twilioToken);
            step("providers' APIs: SMS through Twilio's (%s/twilio, its status callbacks to the worker), Hero Slack "
                    + "through Slack's chat.postMessage, the driver's answer through Twilio's signed webhook", simulatorUrl);
        }
        commonArgs = List.copyOf(common);
        engineArgs = List.copyOf(engine);
        this.engine = startEngine(root, 0);
        step("all three services ready");
        if (!options.console()) {
            return;
        }

        // the console reads as a member of loadflow_reader (made by the migrations), never as the owner
        sql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + CONSOLE_ROLE + "') THEN CREATE ROLE "
                + CONSOLE_ROLE + " LOGIN IN ROLE loadflow_reader; END IF; END $$");
        sql("ALTER ROLE " + CONSOLE_ROLE + " PASSWORD '" + consolePassword + "'");
        List<String> console = new ArrayList<>(common);
        console.addAll(List.of(
                "-Dquarkus.datasource.username=" + CONSOLE_ROLE,
                "-Dquarkus.datasource.password=" + consolePassword,
                "-Dloadflow.console.worker-url=http://127.0.0.1:" + port(8081),
                "-Dloadflow.console.dispatcher-url=http://127.0.0.1:" + port(8082),
                "-Dloadflow.console.cookie-secure=false"));
        launch(root, "ops-console", 8084, 0, console, false);
        awaitReady(port(9084));
        step("ops console ready: %s (sign in with a JWT printed below, or the break-glass token)", consoleUrl());
    }

    /**
     * Starts load-worker, outbox-dispatcher and timer-pump as packaged under {@code root} (this
     * build's, or an earlier release's beside it for an upgrade) on this run's database, their
     * ports {@code offset} above this run's, and waits until each is ready.
     */
    public Engine startEngine(Path root, int offset) throws Exception {
        Engine engine = new Engine(root, offset);
        for (String service : ENGINE.keySet()) {
            engine.launch(service, false);
        }
        for (int port : ENGINE.values()) {
            awaitReady(engine.port(port + 1000));
        }
        return engine;
    }

    /** The three engine services and their API ports in the local run (management: 1000 above). */
    private static final Map<String, Integer> ENGINE = orderedMap("load-worker", 8081, "outbox-dispatcher", 8082, "timer-pump", 8083);

    private static Map<String, Integer> orderedMap(String a, int pa, String b, int pb, String c, int pc) {
        Map<String, Integer> map = new LinkedHashMap<>();
        map.put(a, pa);
        map.put(b, pb);
        map.put(c, pc);
        return java.util.Collections.unmodifiableMap(map);
    }

    /** The three services {@link #start} started (of the release at the options' root). */
    public Engine engine() {
        return engine;
    }

    /**
     * Applies this build's migrations, as the migration Job of its release does: on a schema an
     * earlier release made, while that release's services run.
     */
    public void migrate() {
        flyway(Options.MIGRATIONS).migrate();
        step("schema migrated to this build's as %s", dbUser);
    }

    /** Flyway as the services configure it: with the callback that distributes the schema on Citus. */
    private Flyway flyway(String locations) {
        var flyway = Flyway.configure().dataSource(jdbcUrl, dbUser, dbPassword).locations(locations);
        new DistributeOnCitus().customize(flyway);
        return (schema == null ? flyway : flyway.schemas(schema)).load();
    }

    /** Whether the run's tables are on a Citus coordinator, distributed. */
    public boolean citus() {
        return schema != null;
    }

    /** The three services of one release, started by {@link #startEngine}. */
    public final class Engine {

        private final Path root;
        private final int offset;
        private final Map<String, Process> processes = new LinkedHashMap<>();

        private Engine(Path root, int offset) {
            this.root = root;
            this.offset = offset;
        }

        private void launch(String service, boolean again) throws IOException {
            List<String> args = new ArrayList<>(commonArgs);
            args.addAll(engineArgs);
            args.addAll(options.engineOptions());
            if (service.equals("load-worker")) {
                args.addAll(options.workerOptions());
            }
            processes.put(service, LocalRun.this.launch(root, service, ENGINE.get(service), offset, args, again));
        }

        /** Kills {@code service} as a node failure or the OOM killer does (SIGKILL: no shutdown of any kind). */
        public void kill(String service) throws InterruptedException {
            Process process = processes.get(service);
            process.destroyForcibly().waitFor();
            synchronized (LocalRun.this) {
                services.remove(process);
            }
            step("%s killed (SIGKILL)", service);
        }

        /** Starts {@code service} again, as Kubernetes restarts a killed container, and waits until it is ready. */
        public void restart(String service) throws Exception {
            launch(service, true);
            awaitReady(port(ENGINE.get(service) + 1000));
        }

        /** A port of these services: the local run's ({@code 8081}: the worker's API, {@code 9081}: its management). */
        public int port(int localPort) {
            return LocalRun.this.port(localPort) + offset;
        }

        /** Sends one event of {@code loadId} to this release's ingest API as the demo's source; the answer's status. */
        public int post(HttpClient client, String loadId, String json) throws IOException, InterruptedException {
            return LocalRun.this.post(client, port(8081), loadId, json);
        }

        /** Stops the three as a rollout does: SIGTERM, then each has 30 s to drain and exit before it is killed. */
        public void stop() throws InterruptedException {
            processes.values().forEach(Process::destroy);
            for (Process p : processes.values()) {
                if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                }
            }
            synchronized (LocalRun.this) {
                services.removeAll(processes.values());
            }
        }
    }

    /**
     * The heap each service's pod gives it: 60% of its memory limit in deploy/k8s/base (512Mi, 384Mi
     * for the pump, 448Mi for the console), in MB ({@code ManifestEnvironmentTest} holds the two together).
     */
    public static final Map<String, Integer> POD_HEAP_MB = Map.of("load-worker", 307, "outbox-dispatcher", 307, "timer-pump", 230,
            "ops-console", 268);

    /** Starts {@code service} as packaged under {@code root}; its log goes to its target folder (after what it logged before, {@code again}). */
    private Process launch(Path root, String service, int localPort, int engineOffset, List<String> options, boolean again)
            throws IOException {
        File jar = root.resolve(service).resolve("target/quarkus-app/quarkus-run.jar").toFile();
        if (!jar.isFile()) {
            throw new IllegalStateException(jar + " is missing: build first with ./mvnw -B package -DskipTests");
        }
        // as the images run it: the heap its pod's memory limit gives it (MaxRAMPercentage=60), the serial collector
        List<String> command = new ArrayList<>(List.of(javaBin(), "-Xmx" + POD_HEAP_MB.getOrDefault(service, 307) + "m",
                "-XX:+UseSerialGC",
                "-Dquarkus.http.port=" + (port(localPort) + engineOffset),
                "-Dquarkus.management.port=" + (port(localPort + 1000) + engineOffset)));
        // extra JVM options for every service, e.g. a flight recording per service while a benchmark runs:
        // -Dloadflow.local-run.jvm-args='-XX:StartFlightRecording=filename={service}/target/profile.jfr,settings=profile'
        // ({service} is the service's folder)
        // and for one service, e.g. the pools a component of the manifests gives it:
        // -Dloadflow.local-run.load-worker.jvm-args='-Dquarkus.datasource.reactive.max-size=3 -Dloadflow.worker.concurrency=2'
        for (String key : List.of("loadflow.local-run.jvm-args", "loadflow.local-run." + service + ".jvm-args")) {
            String extra = System.getProperty(key, "").strip();
            if (!extra.isEmpty()) {
                for (String arg : extra.split("\\s+")) {
                    command.add(arg.replace("{service}", root.resolve(service).toString()));
                }
            }
        }
        command.addAll(options);
        command.addAll(List.of("-jar", jar.getPath()));
        int offset = port(localPort) - localPort + engineOffset;
        Path logFile = root.resolve(service).resolve(offset == 0 ? "target/local-run.log" : "target/local-run-" + offset + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(again ? ProcessBuilder.Redirect.appendTo(logFile.toFile()) : ProcessBuilder.Redirect.to(logFile.toFile()));
        pb.environment().putAll(newerSettings(service));
        Process process = pb.start();
        services.add(process);
        pids.put(service, process.pid());
        step("%s starting on :%d (log: %s)", service, port(localPort) + engineOffset, logFile);
        return process;
    }

    /**
     * Settings of this release a service takes as environment variables: an earlier release (an
     * upgrade's starting point) ignores a variable it does not know, where it refuses to start on
     * an unknown {@code -D} of its own prefixes.
     */
    private Map<String, String> newerSettings(String service) {
        if (service.equals("ops-console")) {
            // plain HTTP: the cookies without the __Host- prefix, which a browser keeps only when Secure
            return Map.of("LOADFLOW_CONSOLE_SIGN_IN_COOKIE", "loadflow_session", "LOADFLOW_CONSOLE_CSRF_COOKIE", "loadflow_csrf");
        }
        // retention under its own login; the guide's examples and the tests post the events of one fixed day
        return Map.of("LOADFLOW_RETENTION_USERNAME", RETENTION_ROLE, "LOADFLOW_RETENTION_PASSWORD", retentionPassword,
                "LOADFLOW_INGEST_OCCURRED_AT_MAX_AGE", "P3650D");
    }

    /** Tells the ADR's story of load {@value #LOAD} through the ingest API and prints what the services say of it. */
    public void demo() throws Exception {
        OUT.printf("%n== the demo story of load %s (client A, retry-after %ss instead of 30 min) ==%n",
                LOAD, options.retryAfter().toSeconds());
        ingest("LoadAssigned", """
                {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "2026-11-30T06:55:00Z",
                 "payload": {"clientId": "client-a", "driverPhone": "+15550100", "stage": "dispatched"}}""");
        ingest("a high-risk LocationPing", """
                {"eventId": "ping_0700", "type": "LocationPing", "occurredAt": "2026-11-30T07:00:00Z", "correlationId": "demo-1",
                 "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""");
        awaitDeliveries("sms", 1, Duration.ofSeconds(20));
        step("…the driver does not answer; the timer fires after %ss", options.retryAfter().toSeconds());
        awaitDeliveries("sms", 2, options.retryAfter().plusSeconds(20));
        if (options.providers()) {
            twilioWebhook("the driver's answer through Twilio's webhook", "+15550100", "ETA 9:30, traffic on I-90");
        } else {
            ingest("the driver's answer (InboundSms)", """
                    {"eventId": "sms_0715", "type": "InboundSms", "occurredAt": "2026-11-30T07:15:00Z",
                     "payload": {"from": "+15550100", "text": "ETA 9:30, traffic on I-90"}}""");
        }
        awaitDeliveries("slack", 1, Duration.ofSeconds(20));
        Thread.sleep(1_500);

        JsonNode load = JsonReader.parse(get("http://127.0.0.1:" + port(8081) + "/loads/" + LOAD, operator)).node();
        OUT.printf("%n== GET /loads/%s: version %d, open asks %d, closed %s ==%n", LOAD, load.path("version").asLong(),
                load.path("state").path("openAsks").size(), load.path("state").path("closedAsks"));
        for (JsonNode entry : load.path("log")) {
            JsonNode body = entry.path("body");
            String detail = entry.path("kind").asText().equals("decision")
                    ? (body.path("filtered").asBoolean() ? "filtered: " : "") + body.path("reason").asText()
                    : entry.path("entryId").asText();
            OUT.printf("%4d  %-17s %s%n", entry.path("seq").asLong(), entry.path("type").asText(), detail);
        }
        String timers = get("http://127.0.0.1:" + port(8083) + "/admin/timers?loadId=" + LOAD, viewer);
        OUT.printf("%n== GET /admin/timers?loadId=%s (timer-pump) ==%n", LOAD);
        for (JsonNode t : JsonReader.parse(timers).node().path("timers")) {
            OUT.printf("  %s  %s  fire at %s%n", t.path("timerId").asText(), t.path("status").asText(), t.path("fireAt").asText());
        }
    }

    private static final String TWILIO_ACCOUNT = "AC" + "10ca1f10".repeat(4);

    private String twilioWebhook() {
        return "http://127.0.0.1:" + port(8081) + "/sources/twilio/sms";
    }

    /** An incoming SMS as Twilio posts it to the load worker: form-encoded, signed with the account's auth token. */
    private void twilioWebhook(String what, String from, String text) throws Exception {
        int status = driverWrites("SM" + "0715".repeat(8), from, text);
        step("POST %s → %d", what, status);
    }

    /**
     * A driver's SMS to the broker's number, as Twilio's signed webhook brings it to the load worker
     * (with the providers' APIs); returns the worker's status.
     */
    public int driverWrites(String messageSid, String from, String text) throws Exception {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("MessageSid", messageSid);
        form.put("AccountSid", TWILIO_ACCOUNT);
        form.put("From", from);
        form.put("To", "+15557770000");
        form.put("Body", text);
        form.put("NumMedia", "0");
        String body = form.entrySet().stream().map(e -> java.net.URLEncoder.encode(e.getKey(), java.nio.charset.StandardCharsets.UTF_8)
                + "=" + java.net.URLEncoder.encode(e.getValue(), java.nio.charset.StandardCharsets.UTF_8))
                .collect(java.util.stream.Collectors.joining("&"));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(twilioWebhook()))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("X-Twilio-Signature", dev.loadflow.worker.twilio.TwilioSignature.of(twilioWebhook(), form, twilioToken))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode();
    }

    private void ingest(String what, String json) throws Exception {
        ingest(LOAD, what, json);
    }

    /** Sends an event of {@code loadId} through the ingest API, as the demo's source. */
    public void ingest(String loadId, String what, String json) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(8081) + "/loads/"
                        + loadId + "/events"))
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

    private void awaitReady(int port) throws Exception {
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

                Everything keeps running until Ctrl-C: the API on :8081, :8082, :8083; the ops console on
                http://127.0.0.1:8084 (sign in with $OPERATOR or $VIEWER); health and metrics on :9081, :9082,
                :9083, :9084 (/q/health, /q/metrics); the channel simulator on :8090.
                Credentials of this run (the JWTs are valid for 12 hours):
                  export INGEST_TOKEN=%s
                  export VIEWER=%s
                  export OPERATOR=%s
                  export DATABASE_URL=%s
                Try them:
                  curl -s -H "Authorization: Bearer $INGEST_TOKEN" -H 'content-type: application/json' localhost:8081/loads/%s/events \\
                       -d '{"eventId":"ping_0800","type":"LocationPing","occurredAt":"2026-11-30T08:00:00Z","payload":{"risk":"low","lat":41.9,"lon":-87.6}}'
                  curl -s -H "Authorization: Bearer $VIEWER" localhost:8081/loads/%s | jq .state
                  curl -s -H "Authorization: Bearer $VIEWER" localhost:8082/admin/outbox/dead | jq .
                  curl -s -H "Authorization: Bearer $OPERATOR" -X POST 'localhost:8082/admin/outbox/replay?loadId=%s&limit=50&dryRun=true' | jq .
                  curl -s -H "Authorization: Bearer $VIEWER" localhost:8081/admin/loads/held | jq .
                  curl -s localhost:9082/q/metrics | grep loadflow_outbox_sends_total
                The break-glass token is %s.
                """, ingestToken, viewer, operator, databaseUrl(), LOAD, LOAD, LOAD, adminToken);
    }

    private String jwt(String subject, String group) {
        return Jwt.issuer(ISSUER).audience(AUDIENCE).subject(subject).groups(Set.of(group)).expiresIn(Duration.ofHours(12).toSeconds())
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

    private static boolean hasCitus(String adminUrl, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl, user, password); var sql = c.createStatement();
             ResultSet found = sql.executeQuery("SELECT 1 FROM pg_extension WHERE extname = 'citus'")) {
            return found.next();
        }
    }

    private static void recreateSchema(String adminUrl, String user, String password, String schema) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl, user, password); var sql = c.createStatement()) {
            sql.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            sql.execute("CREATE SCHEMA " + schema);
        }
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
    public synchronized void stop() {
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
