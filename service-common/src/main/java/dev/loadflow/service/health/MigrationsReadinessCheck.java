package dev.loadflow.service.health;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;

/**
 * Ready only when the schema is at the version this build expects: no migration pending. On
 * Kubernetes the migration Job applies them and the services wait here; locally the services
 * migrate at start ({@code loadflow.db.migrate-at-start}, {@link MigrateAtStart}). Once the
 * schema is found current it stays so for this process (a schema does not go back), so the
 * probe stops asking Flyway, whose JDBC connections are the ones a database restart leaves
 * stale the longest; whether the database answers is the datasource checks' to say.
 */
@Readiness
@ApplicationScoped
public class MigrationsReadinessCheck implements HealthCheck {

    static final String NAME = "loadflow-migrations";

    private final Flyway flyway;
    private volatile String currentVersion;

    MigrationsReadinessCheck(Flyway flyway) {
        this.flyway = flyway;
    }

    @Override
    public HealthCheckResponse call() {
        if (currentVersion != null) {
            return HealthCheckResponse.named(NAME).up().withData("schemaVersion", currentVersion).withData("pending", 0).build();
        }
        try {
            var info = flyway.info();
            MigrationInfo current = info.current();
            MigrationInfo[] pending = info.pending();
            boolean up = current != null && pending.length == 0;
            if (up) {
                currentVersion = current.getVersion().toString();
            }
            return HealthCheckResponse.named(NAME)
                    .status(up)
                    .withData("schemaVersion", current == null ? "none" : current.getVersion().toString())
                    .withData("pending", pending.length)
                    .build();
        } catch (RuntimeException e) {
            return HealthCheckResponse.named(NAME).down().withData("error", e.getClass().getSimpleName()).build();
        }
    }
}
