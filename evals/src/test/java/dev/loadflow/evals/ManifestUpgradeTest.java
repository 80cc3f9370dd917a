package dev.loadflow.evals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.deploy.Kustomize;
import dev.loadflow.deploy.Releases;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.List;

import static dev.loadflow.evals.ManifestEnvironmentTest.ROOT;
import static dev.loadflow.evals.ManifestEnvironmentTest.environment;
import static dev.loadflow.evals.ManifestEnvironmentTest.newestMigration;
import static dev.loadflow.evals.ManifestEnvironmentTest.object;
import static dev.loadflow.evals.ManifestEnvironmentTest.runJob;
import static dev.loadflow.evals.ManifestEnvironmentTest.schemaVersion;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The manifests across an upgrade, as a cluster applies a release over the one before: the
 * previous release's {@code jvm} overlay (its own manifests and its own packaged worker, from its
 * release commit: {@code scripts/previous-release}) runs its migration Job on a fresh database;
 * then this build's {@code jvm} overlay runs its Job, which applies this build's migrations on
 * top, and every Deployment's service is ready with exactly the environment the overlay gives it.
 * A release's Job has a name of its own: a Job's template cannot change, so {@code kubectl apply}
 * refuses a Job of the previous release's name whose template differs.
 *
 * <p>Not in the test suite (it needs the previous release built); {@code .ci/run} runs it beside
 * {@link RollingUpgradeTest}, with {@code -Dloadflow.upgrade.previous=target/previous-release}.
 */
@Tag("upgrade")
class ManifestUpgradeTest {

    private final TestDatabase database = PostgresServer.get().createDatabase("manifest_upgrade", false);

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void theReleasesJobMigratesOverThePreviousReleasesAndEveryServiceIsReady() throws Exception {
        String built = System.getProperty("loadflow.upgrade.previous");
        assertThat(built).as("-Dloadflow.upgrade.previous names the previous release's build (scripts/previous-release)").isNotBlank();
        Path previous = ROOT.resolve(built).normalize();
        List<ObjectNode> before = Kustomize.render(previous.resolve("deploy/k8s/overlays/jvm"));
        List<ObjectNode> after = Kustomize.render(ROOT.resolve("deploy/k8s/overlays/jvm"));
        ObjectNode previousJob = object(before, "Job", null);
        ObjectNode job = object(after, "Job", null);
        if (!Releases.pomVersion(ROOT).endsWith("-SNAPSHOT")) {
            assertThat(job.path("metadata").path("name").asText()).as("this release's Job, beside the previous release's")
                    .isNotEqualTo(previousJob.path("metadata").path("name").asText());
        }

        assertThat(runJob(previous, previousJob, environment(before, previousJob, "previous-job", database)))
                .as("the previous release's Job (log: target/migration-job.log)").isZero();
        assertThat(schemaVersion(DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())))
                .as("the schema, at the previous release").isEqualTo(newestMigration(previous));
        assertThat(runJob(ROOT, job, environment(after, job, "job", database))).as("this release's Job (log: target/migration-job.log)")
                .isZero();
        assertThat(schemaVersion(DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password())))
                .as("the schema, upgraded").isEqualTo(newestMigration(ROOT));
        ManifestEnvironmentTest.startEveryService("upgrade", after, ManifestEnvironmentTest.secrets(), database, () -> { });
    }
}
