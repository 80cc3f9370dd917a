package dev.loadflow.worker;

import dev.loadflow.service.security.Roles;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.asOperator;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.post;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;

/**
 * The held-load admin API of the service as deployed (on-poison=hold, the default): viewers
 * list held loads, operators retry or skip them, every change is audited, and bad input changes
 * nothing.
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
class HeldLoadsAdminTest {

    @Inject
    LoadQueue queue;

    private static RequestSpecification asViewer() {
        return given().auth().oauth2(TestCallers.viewer());
    }

    /** A load held at an unreadable head, with an assignment waiting behind it. */
    private String heldLoad() {
        String load = newLoadId();
        queue.enqueue(new QueueMessage(load, "garbled", "{\"eventId\": \"garbled\"}"));
        assertThat(post(load, assigned("assign_1"))).isEqualTo(202);
        await().atMost(Duration.ofSeconds(20)).until(() -> heldView(load) != null);
        return load;
    }

    private static Map<String, Object> heldView(String load) {
        List<Map<String, Object>> held = asViewer().get("/admin/loads/held").then().statusCode(200)
                .extract().jsonPath().getList("held");
        return held.stream().filter(h -> load.equals(h.get("loadId"))).findFirst().orElse(null);
    }

    @Test
    void aHeldLoadIsListedWithItsHeadAndWhatWaitsBehindIt() {
        String load = heldLoad();

        assertThat(heldView(load)).containsEntry("messageId", "garbled").containsEntry("messageType", "unreadable")
                .containsEntry("state", "held").containsEntry("waiting", 1)
                .containsEntry("reason", "unreadable message: type: missing").containsKey("since");
        given().get("/admin/loads/held").then().statusCode(401).contentType("application/problem+json");
        asViewer().post("/admin/loads/{loadId}/retry", load).then().statusCode(403).contentType("application/problem+json");
        asViewer().queryParam("limit", 0).get("/admin/loads/held").then().statusCode(400)
                .contentType("application/problem+json").body("field", is("limit"));
        assertThat(asOperator().get("/loads/{loadId}", load).then().extract().statusCode())
                .as("the assignment behind the held head has not run").isEqualTo(404);
    }

    @Test
    void anOperatorSkipsTheHeadWithAReasonAndTheLoadGoesOn() {
        String load = heldLoad();

        asOperator().contentType("application/json").body("{\"reason\": \"garbled by the gateway\"}")
                .post("/admin/loads/{loadId}/skip", load)
                .then().statusCode(200).body("messageId", is("garbled")).body("state", is("skipped"))
                .body("auditId", notNullValue());

        JsonPath view = awaitVersion(load, 3);
        assertThat(view.getList("log.entryId")).containsExactly("garbled", "assign_1", "dec:assign_1");
        assertThat(view.getString("log[0].type")).isEqualTo("MessageSkipped");
        assertThat(view.getString("log[0].body.principal")).isEqualTo("otto");
        assertThat(view.getString("log[0].body.reason")).isEqualTo("garbled by the gateway");
        await().atMost(Duration.ofSeconds(20)).until(() -> heldView(load) == null);
        asOperator().contentType("application/json").body("{\"reason\": \"again\"}")
                .post("/admin/loads/{loadId}/skip", load)
                .then().statusCode(404).contentType("application/problem+json");
        assertThat(audit(load)).containsExactly(List.of("otto", "load.skip"));
    }

    @Test
    void aRetryOfAnUnreadableHeadHoldsItAgain() {
        String load = heldLoad();

        asOperator().post("/admin/loads/{loadId}/retry", load)
                .then().statusCode(200).body("state", is("retry")).body("messageId", is("garbled"));

        await().atMost(Duration.ofSeconds(20)).until(() -> "held".equals(heldView(load).get("state")));
        assertThat(heldView(load)).containsEntry("reason", "unreadable message: type: missing");
        assertThat(audit(load)).containsExactly(List.of("otto", "load.retry"));
    }

    @Test
    void theAuditNamesThePersonByTheirSubjectNotTheNameTheyGoBy() {
        String load = heldLoad();
        String renamed = TestCallers.sign(TestCallers.claims("u-4711").upn("otto@broker.example")
                .preferredUserName("otto").groups(Roles.OPERATOR));

        given().auth().oauth2(renamed).post("/admin/loads/{loadId}/retry", load).then().statusCode(200);

        assertThat(audit(load)).containsExactly(List.of("u-4711", "load.retry"));
    }

    @Test
    void badInputToTheRepairsIsRefusedAndChangesNothing() {
        String load = heldLoad();
        String unknown = newLoadId();

        asOperator().post("/admin/loads/{loadId}/retry", unknown).then().statusCode(404)
                .contentType("application/problem+json").body("detail", is("load " + unknown + " is not held"));
        asOperator().contentType("application/json").body("{\"reason\": \"x\"}")
                .post("/admin/loads/{loadId}/skip", unknown).then().statusCode(404).contentType("application/problem+json");
        for (String body : List.of("{\"reason\": \"\"}", "{\"reason\": \"   \"}", "{}", "{\"reason\": 7}", "{\"reason\":",
                "", "[]", "{\"reason\": \"ok\", \"force\": true}", "{\"reason\": \"" + "x".repeat(501) + "\"}")) {
            asOperator().contentType("application/json").body(body).post("/admin/loads/{loadId}/skip", load)
                    .then().statusCode(400).contentType("application/problem+json");
        }

        assertThat(heldView(load)).containsEntry("state", "held");
        assertThat(audit(load)).as("nothing refused is in the trail").isEmpty();
        assertThat(audit(unknown)).isEmpty();
    }

    @Test
    void theHoldsOfATimeSpanAreSkippedTogetherAfterADryRunEachAuditedAsOne() {
        String first = heldLoad();
        String second = heldLoad();
        String later = heldLoad();
        Map<String, String> span = Map.of("since", (String) heldView(first).get("since"),
                "until", (String) heldView(later).get("since"), "messageType", "unreadable");
        String skip = "{\"action\": \"skip\", \"reason\": \"garbled by the gateway's 02:00 deploy\"}";

        asOperator().queryParams(span).queryParam("limit", 10).queryParam("dryRun", true)
                .contentType("application/json").body(skip).post("/admin/loads/held/repair")
                .then().statusCode(200).body("action", is("skip")).body("matched", is(2))
                .body("loads.loadId", contains(first, second)).body("loads.messageId", contains("garbled", "garbled"));
        assertThat(heldView(first)).as("a dry run changes nothing").containsEntry("state", "held");
        assertThat(audit(first)).isEmpty();

        asOperator().queryParams(span).queryParam("limit", 10).contentType("application/json").body(skip)
                .post("/admin/loads/held/repair")
                .then().statusCode(200).body("done.loadId", contains(first, second))
                .body("done.state", contains("skipped", "skipped")).body("refused", empty());

        for (String load : List.of(first, second)) {
            JsonPath view = awaitVersion(load, 3);
            assertThat(view.getString("log[0].type")).isEqualTo("MessageSkipped");
            assertThat(view.getString("log[0].body.reason")).isEqualTo("garbled by the gateway's 02:00 deploy");
            assertThat(audit(load)).containsExactly(List.of("otto", "load.skip"));
        }
        assertThat(heldView(later)).as("held after the span: left as it was").containsEntry("state", "held");
        assertThat(audit(later)).isEmpty();
    }

    @Test
    void aBulkRepairIsRefusedWithoutALimitAReasonToSkipOrTheOperatorRole() {
        String load = heldLoad();
        String since = (String) heldView(load).get("since");

        for (String body : List.of("{\"action\": \"skip\"}", "{\"action\": \"skip\", \"reason\": \" \"}",
                "{\"action\": \"delete\"}", "{}", "{\"action\": \"retry\", \"force\": true}")) {
            asOperator().queryParam("since", since).queryParam("limit", 5).contentType("application/json").body(body)
                    .post("/admin/loads/held/repair").then().statusCode(400).contentType("application/problem+json");
        }
        for (Object limit : List.of(0, 201, "")) {
            asOperator().queryParam("since", since).queryParam("limit", limit).contentType("application/json")
                    .body("{\"action\": \"retry\"}").post("/admin/loads/held/repair")
                    .then().statusCode(400).contentType("application/problem+json");
        }
        asOperator().queryParam("since", "yesterday").queryParam("limit", 5).contentType("application/json")
                .body("{\"action\": \"retry\"}").post("/admin/loads/held/repair")
                .then().statusCode(400).body("field", is("since"));
        asOperator().queryParam("since", since).queryParam("until", since).queryParam("limit", 5)
                .contentType("application/json").body("{\"action\": \"retry\"}").post("/admin/loads/held/repair")
                .then().statusCode(400).body("field", is("until"));
        asViewer().queryParam("since", since).queryParam("limit", 5).contentType("application/json")
                .body("{\"action\": \"retry\"}").post("/admin/loads/held/repair").then().statusCode(403);

        assertThat(heldView(load)).containsEntry("state", "held");
        assertThat(audit(load)).as("nothing refused is in the trail").isEmpty();
    }

    private static List<List<Object>> audit(String load) {
        return PostgresTestResource.current().rows(
                        "SELECT principal, action FROM admin_audit WHERE target = ? ORDER BY id", load).stream()
                .map(row -> List.<Object>of(row.get("principal"), row.get("action"))).toList();
    }
}
