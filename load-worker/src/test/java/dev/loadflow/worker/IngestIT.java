package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The ingest and read cases against the packaged service (and the native binary where one is built). */
@QuarkusIntegrationTest
@WithTestResource(PostgresTestResource.class)
class IngestIT extends IngestTest {
}
