package dev.loadflow.worker;

import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.asSource;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.post;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * An event type added to loadflow as the guide to extending it says: the example in the test
 * sources ({@code dev.loadflow.worker.example}) is a payload record and its {@code EventKind}
 * listed in {@code META-INF/services}. Ingest takes it from the sources that own it, checks its
 * fields, and the worker logs it with a decision (the SOP has no rule for it).
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class AddedEventTypeTest {

    private static String doorOpened(String eventId, String payload) {
        return """
                {"eventId": "%s", "type": "DoorOpened", "occurredAt": "2026-11-30T07:05:00Z", "payload": %s}"""
                .formatted(eventId, payload);
    }

    @Test
    void anAddedEventTypeIsIngestedLoggedAndDecided() {
        String load = newLoadId();
        post(load, assigned("assign_1"));

        asSource().contentType("application/json").body(doorOpened("door_0705", "{\"door\": \"rear\", \"sealIntact\": false}"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(202).body("status", is("queued"));

        JsonPath view = awaitVersion(load, 4);
        assertThat(view.getList("log.type")).containsExactly("LoadAssigned", "DecisionRecorded", "DoorOpened", "DecisionRecorded");
        assertThat(view.getString("log[2].body.payload.door")).isEqualTo("rear");
        assertThat(view.getBoolean("log[2].body.payload.sealIntact")).isFalse();
        assertThat(view.getString("log[3].body.reason")).isEqualTo("the SOP has no rule for DoorOpened");
        assertThat(view.getList("log[3].body.actions")).isEmpty();
    }

    @Test
    void itsFieldsAreCheckedAndOnlyTheSourcesThatOwnItMayPostIt() {
        String load = newLoadId();

        asSource().contentType("application/json").body(doorOpened("door_1", "{\"door\": \"rear\", \"colour\": \"red\", \"sealIntact\": true}"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(400).contentType("application/problem+json").body("field", is("payload.colour"));
        asSource().contentType("application/json").body(doorOpened("door_2", "{\"door\": \"rear\"}"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(400).body("field", is("payload.sealIntact"));
        given().auth().oauth2(TestCallers.SMS_GATEWAY_TOKEN).contentType("application/json")
                .body(doorOpened("door_3", "{\"door\": \"rear\", \"sealIntact\": true}"))
                .when().post("/loads/{loadId}/events", load)
                .then().statusCode(403).body("detail", is("source sms-gateway may not post DoorOpened events"));

        given().auth().oauth2(TestCallers.operator()).get("/loads/{loadId}", load).then().statusCode(404);
    }
}
