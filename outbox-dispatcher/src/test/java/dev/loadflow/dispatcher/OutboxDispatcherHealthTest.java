package dev.loadflow.dispatcher;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.ServiceHealthContract;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class OutboxDispatcherHealthTest extends ServiceHealthContract {
}
