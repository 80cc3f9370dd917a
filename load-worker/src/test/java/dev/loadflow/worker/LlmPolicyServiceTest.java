package dev.loadflow.worker;

import dev.loadflow.model.policy.DecisionPolicy;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.worker.agent.AgentPolicy;
import dev.loadflow.worker.lock.LoadLock;
import dev.loadflow.worker.lock.PgLeaseLock;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.worker.LoadApi.assigned;
import static dev.loadflow.worker.LoadApi.asOperator;
import static dev.loadflow.worker.LoadApi.awaitVersion;
import static dev.loadflow.worker.LoadApi.ping;
import static dev.loadflow.worker.LoadApi.post;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker with {@code loadflow.policy.kind=llm}, configured by its pinned keys: events go in
 * through ingest, the model (WireMock) is asked with the configured key, and the decision in
 * the log says the model took it, what it cost, and with which prompt. The load lock is on.
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
@WithTestResource(ChatModelResource.class)
class LlmPolicyServiceTest {

    @Inject
    DecisionPolicy policy;

    @Inject
    LoadLock lock;

    @Test
    void theModelDecidesAHighRiskPingAndTheLogSaysSo() {
        String load = newLoadId();
        post(load, assigned("assign_1"));
        post(load, ping("ping_0700", "high"));
        awaitVersion(load, 4);

        JsonPath view = asOperator().get("/loads/" + load).then().statusCode(200).extract().jsonPath();
        assertThat(view.getList("log.type")).containsExactly("LoadAssigned", "DecisionRecorded", "LocationPing", "DecisionRecorded");
        assertThat(view.getString("log[3].body.decidedBy")).isEqualTo("llm");
        assertThat(view.getString("log[3].body.agent.model")).isEqualTo("wired-1");
        assertThat(view.getInt("log[3].body.agent.tokensIn")).isEqualTo(500);
        assertThat(view.getString("log[3].body.reason")).isEqualTo("high-risk ping: asking the driver");
        assertThat(view.getList("log[3].body.actions.type")).containsExactly("send_sms", "set_timer");
        assertThat(view.getString("log[1].body.decidedBy")).isEqualTo("llm");
        ChatModelResource.server.verify(2, postRequestedFor(urlEqualTo("/v1/chat/completions"))
                .withHeader("Authorization", equalTo("Bearer test-api-key")));
        assertThat(policy).isInstanceOf(AgentPolicy.class);
        assertThat(lock).as("on by default with the model").isInstanceOf(PgLeaseLock.class);
    }
}
