package dev.loadflow.dispatcher;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

/**
 * A real HTTP server standing in for every channel (SMS, Hero tasks, Hero Slack) and for the
 * clients' stage webhooks (any path the test names in its {@code stage_changed} rows).
 */
public class WireMockChannels implements QuarkusTestResourceLifecycleManager {

    public static final String ADMIN_TOKEN = "test-admin-token";
    /** client-b's stage webhook secret, made for this test JVM (none is kept in the repository). */
    public static final String CLIENT_B_SECRET = "whsec_" + Base64.getEncoder().encodeToString(randomKey());

    private static WireMockServer server;

    public static WireMockServer server() {
        return server;
    }

    @Override
    public Map<String, String> start() {
        server = new WireMockServer(options().dynamicPort().containerThreads(64));
        server.start();
        String base = server.baseUrl();
        return Map.of(
                "loadflow.channels.sms.url", base + "/sms",
                "loadflow.channels.hero.url", base + "/hero",
                "loadflow.channels.slack.url", base + "/slack",
                "example.email.url", base + "/email",
                // as a Slack incoming webhook: no idempotency key kept, so a lost answer is left to an operator
                "loadflow.channels.slack.dedupes", "false",
                "loadflow.channels.stage-webhooks.clients.client-b.secret", CLIENT_B_SECRET,
                "loadflow.admin.token", ADMIN_TOKEN);
    }

    private static byte[] randomKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return key;
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop();
        }
    }
}
