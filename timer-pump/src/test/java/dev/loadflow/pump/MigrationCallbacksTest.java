package dev.loadflow.pump;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.citus.CitusSchema;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service's own Flyway (its migration at start, and the migration Job, which runs a service)
 * distributes the schema on Citus after migrating: without the callback a coordinator's schema
 * would have no node functions, and every claim would fail.
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class MigrationCallbacksTest {

    @Inject
    Flyway flyway;

    @Test
    void theServicesFlywayDistributesTheSchemaOnCitus() {
        assertThat(flyway.getConfiguration().getCallbacks()).hasAtLeastOneElementOfType(CitusSchema.class);
    }
}
