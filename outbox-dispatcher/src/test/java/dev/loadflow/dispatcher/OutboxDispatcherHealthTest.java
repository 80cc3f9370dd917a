package dev.loadflow.dispatcher;

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
class OutboxDispatcherHealthTest extends ServiceHealthContract {

    @Override
    protected String service() {
        return "outbox-dispatcher";
    }

    @Test
    void readyWithTheDispatchLoopRunningAndTheBreakGlassDoorClosedWhenNoTokenIsConfigured() {
        management().when().get("/q/health/ready")
                .then().statusCode(200)
                .body("checks.find { it.name == 'outbox-dispatch-loop' }.status", is("UP"));
        management().when().get("/q/health/live")
                .then().statusCode(200)
                .body("checks.find { it.name == 'outbox-dispatch-loop-alive' }.status", is("UP"));
        given().when().get("/admin/alerts").then().statusCode(401).contentType("application/problem+json");
        // no loadflow.admin.token here: the token other tests configure opens nothing
        given().auth().oauth2(WireMockChannels.ADMIN_TOKEN).when().get("/admin/alerts").then().statusCode(401)
                .contentType("application/problem+json");
    }
}
