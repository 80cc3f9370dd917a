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
 * migrate at start ({@code quarkus.flyway.migrate-at-start}).
 */
@Readiness
@ApplicationScoped
public class MigrationsReadinessCheck implements HealthCheck {

    static final String NAME = "loadflow-migrations";

    private final Flyway flyway;

    MigrationsReadinessCheck(Flyway flyway) {
        this.flyway = flyway;
    }

    @Override
    public HealthCheckResponse call() {
        try {
            var info = flyway.info();
            MigrationInfo current = info.current();
            MigrationInfo[] pending = info.pending();
            return HealthCheckResponse.named(NAME)
                    .status(current != null && pending.length == 0)
                    .withData("schemaVersion", current == null ? "none" : current.getVersion().toString())
                    .withData("pending", pending.length)
                    .build();
        } catch (RuntimeException e) {
            return HealthCheckResponse.named(NAME).down().withData("error", e.getClass().getSimpleName()).build();
        }
    }
}
