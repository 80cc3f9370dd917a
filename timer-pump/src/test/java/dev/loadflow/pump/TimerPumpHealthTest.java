package dev.loadflow.pump;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.ServiceHealthContract;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class TimerPumpHealthTest extends ServiceHealthContract {

    @Override
    protected String service() {
        return "timer-pump";
    }
}
