package dev.loadflow.pump;

import dev.loadflow.service.testing.PostgresTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same checks against the packaged service. */
@QuarkusIntegrationTest
@WithTestResource(PostgresTestResource.class)
class TimerPumpHealthIT extends TimerPumpHealthTest {
}
