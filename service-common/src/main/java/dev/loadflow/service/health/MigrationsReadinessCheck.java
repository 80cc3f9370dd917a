package dev.loadflow.service.health;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only while the {@link SchemaGate} is open: the schema is this build's, or ahead of it by
 * migrations it can run on. On Kubernetes the migration Job applies the migrations and the
 * services wait here; locally they migrate at start ({@code loadflow.db.migrate-at-start},
 * {@link MigrateAtStart}). The probe answers from the gate's last reading, and asks the database
 * itself only while the gate has no reading; whether the database answers is the datasource
 * checks' to say.
 */
@Readiness
@ApplicationScoped
public class MigrationsReadinessCheck implements HealthCheck {

    static final String NAME = "loadflow-migrations";

    private final SchemaGate gate;

    MigrationsReadinessCheck(SchemaGate gate) {
        this.gate = gate;
    }

    @Override
    public HealthCheckResponse call() {
        SchemaGate.Reading reading = gate.reading();
        if (reading.standing() == SchemaGate.Standing.UNKNOWN) {
            // not read yet (or the database did not answer): look now rather than say nothing
            reading = gate.look();
        }
        var response = HealthCheckResponse.named(NAME)
                .status(reading.standing().open())
                .withData("standing", reading.standing().name().toLowerCase(java.util.Locale.ROOT))
                .withData("schemaVersion", reading.database() <= 0 ? "none" : Integer.toString(reading.database()))
                .withData("buildVersion", Integer.toString(reading.build()))
                .withData("pending", Math.max(0, reading.pending()));
        if (reading.floor() >= 0) {
            response.withData("floor", Integer.toString(reading.floor()));
        }
        if (reading.error() != null) {
            response.withData("error", reading.error());
        }
        return response.build();
    }
}
