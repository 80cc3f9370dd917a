package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.service.testing.PostgresTestResource;
import dev.loadflow.store.eventlog.EventStore;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.loadflow.dispatcher.Staging.count;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * A slow provider holds back nothing but its own rows: with the SMS provider taking 2 s an answer
 * and 150 SMS due at once, the timers decided beside them and the Slack posts decided after them
 * are all done within seconds, long before the SMS backlog is (the SMS channel's in-flight limit
 * lets a few dozen requests out at a time).
 */
@QuarkusTest
@WithTestResource(PostgresTestResource.class)
@WithTestResource(WireMockChannels.class)
class PacingTest {

    @Inject
    EventStore events;

    @Inject
    Clock clock;

    @Inject
    Pool pool;

    @Inject
    ChannelGuards guards;

    @Test
    void internalActionsAndAnotherChannelNeverWaitBehindASlowChannel() {
        WireMockServer wiremock = WireMockChannels.server();
        String prefix = "pace-" + Long.toHexString(clock.millis());
        wiremock.stubFor(post(urlEqualTo("/sms/messages")).withHeader("Idempotency-Key", matching(prefix + ".*"))
                .willReturn(aResponse().withStatus(200).withBody("sent").withFixedDelay(2_000)));
        wiremock.stubFor(post(urlEqualTo("/slack")).withHeader("Idempotency-Key", matching(prefix + ".*"))
                .willReturn(aResponse().withStatus(200).withBody("ok")));

        for (int i = 0; i < 150; i++) {
            Staging.etaAsk(events, prefix + "-" + i, clock.instant());
        }
        for (int i = 0; i < 40; i++) {
            Staging.decide(events, prefix + "-slack-" + i, List.of(new Action.PostHeroSlack(Staging.ASK.toString(), 1,
                    "#hero-desk", "driver answered")), clock.instant());
        }

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() ->
                rows(prefix, "set_timer") == 150 && rows(prefix, "post_hero_slack") == 40);
        assertThat(rows(prefix, "send_sms")).as("SMS sent by the time every timer and post was done").isLessThan(150);
        assertThat(guards.capacity(Channel.SMS)).as("twice the SMS channel's in-flight limit").isBetween(2, 512);
        await().atMost(Duration.ofSeconds(60)).until(() -> rows(prefix, "send_sms") == 150);
    }

    private long rows(String prefix, String actionType) {
        return count(pool, "SELECT count(*) FROM outbox WHERE load_id LIKE $1 AND status = 'dispatched' AND action_type = '"
                + actionType + "'", prefix + "%");
    }
}
