package dev.loadflow.evals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migration Job as the manifests run it ({@code deploy/k8s/base/migrate-job.yaml}): the
 * packaged load-worker with the Job's environment and the ConfigMap's, on a database of its own,
 * applies every migration and exits 0; the next release's Job, with nothing to apply, exits 0
 * too. On a JDBC pool of two the Job gave up after its last migration (Flyway's after-migrate
 * callbacks take a third connection) and could not succeed.
 */
class MigrationJobTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final TestDatabase database = PostgresServer.get().createDatabase("job", false);

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void theJobMigratesAFreshDatabaseAndExitsAndSoDoesTheNextWithNothingToApply() throws Exception {
        Map<String, String> environment = jobEnvironment();

        assertThat(runJob(environment, "first")).as("the Job's exit code (log: target/migration-job-first.log)").isZero();
        assertThat(schemaVersion()).as("the schema's version").isEqualTo(newestMigration());

        assertThat(runJob(environment, "again")).as("with nothing to apply (log: target/migration-job-again.log)").isZero();
        assertThat(schemaVersion()).isEqualTo(newestMigration());
    }

    /** The ConfigMap's settings, then the Job container's own, then this test's database in place of the cluster's. */
    private Map<String, String> jobEnvironment() throws IOException {
        Map<String, String> environment = new LinkedHashMap<>();
        YAML.readTree(ROOT.resolve("deploy/k8s/base/config.yaml").toFile()).path("data").properties()
                .forEach(setting -> environment.put(setting.getKey(), setting.getValue().asText()));
        JsonNode container = YAML.readTree(ROOT.resolve("deploy/k8s/base/migrate-job.yaml").toFile())
                .path("spec").path("template").path("spec").path("containers").get(0);
        container.path("env").forEach(variable -> environment.put(variable.path("name").asText(), variable.path("value").asText()));
        environment.put("QUARKUS_DATASOURCE_JDBC_URL", database.jdbcUrl());
        environment.put("QUARKUS_DATASOURCE_REACTIVE_URL", database.reactiveUrl());
        environment.put("QUARKUS_DATASOURCE_USERNAME", database.user());
        environment.put("QUARKUS_DATASOURCE_PASSWORD", database.password());
        environment.put("QUARKUS_HTTP_PORT", "0");
        environment.put("QUARKUS_MANAGEMENT_PORT", "0");
        return environment;
    }

    private int runJob(Map<String, String> environment, String run) throws IOException, InterruptedException {
        Path log = Path.of("target", "migration-job-" + run + ".log");
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder job = new ProcessBuilder(java, "-jar",
                ROOT.resolve("load-worker/target/quarkus-app/quarkus-run.jar").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        job.environment().putAll(environment);
        Process process = job.start();
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
