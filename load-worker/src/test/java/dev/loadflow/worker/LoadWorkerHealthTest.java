package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.ServiceHealthContract;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import static dev.loadflow.service.testing.Management.management;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;

@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class LoadWorkerHealthTest extends ServiceHealthContract {

    @Override
    protected String service() {
        return "load-worker";
    }

    @Test
    void readyOnlyWithTheQueueConsumerStartedAndLiveWhileItsLoopGoesRound() {
        management().when().get("/q/health/ready")
                .then().statusCode(200)
                .body("checks.find { it.name == 'load-queue-consumer' }.status", is("UP"))
                .body("checks.find { it.name == 'load-queue-consumer' }.data.enabled", is(true));
        management().when().get("/q/health/live")
                .then().statusCode(200)
                .body("checks.find { it.name == 'load-queue-consumer-loop' }.status", is("UP"));
    }
}
