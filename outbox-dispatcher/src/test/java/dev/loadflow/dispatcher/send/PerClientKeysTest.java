package dev.loadflow.dispatcher.send;

import com.standardwebhooks.Webhook;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Per-client settings set from the environment reach a client whose id has a dash, and a variable
 * that would reach no client refuses the start instead of being ignored.
 */
class PerClientKeysTest {

    private static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString("key-of-client-a-32-bytes-long!!!".getBytes());

    /** The dispatcher's channel settings as SmallRye Config reads them from {@code env}. */
    private static ChannelsConfig fromEnvironment(Map<String, String> env) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withSources(new EnvConfigSource(env, 300) {
                })
                .withMapping(ChannelsConfig.class)
                .build();
        return config.getConfigMapping(ChannelsConfig.class);
    }

    @Test
    void theDocumentedEnvironmentFormSignsTheWebhooksOfAClientWhoseIdHasADash() throws Exception {
        Map<String, String> env = Map.of("LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS__CLIENT_A__SECRET", SECRET);
        ChannelsConfig channels = fromEnvironment(env);

        PerClientKeys.checkEnvironment(env, "LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_", "_SECRET",
                channels.stageWebhooks().clients().keySet(), "loadflow.channels.stage-webhooks.clients.<id>.secret");
        Map<String, ChannelsConfig.StageWebhookCalls.Client> folded = PerClientKeys.folded(channels.stageWebhooks().clients(),
                "loadflow.channels.stage-webhooks.clients.<id>.secret");

        String secret = folded.get(PerClientKeys.fold("client-a")).secret();
        String id = "481207/evt:assigned_1/1/stage_changed";
        long now = java.time.Instant.now().getEpochSecond();
        // the receiver's check, with the Standard Webhooks library and the secret the client holds
        new Webhook(SECRET).verify("{}", Map.of("webhook-id", List.of(id), "webhook-timestamp", List.of(Long.toString(now)),
                "webhook-signature", List.of(new Webhook(secret).sign(id, now, "{}"))));
    }

    @Test
    void theFormWithSingleUnderscoresWouldBeIgnoredSoTheStartIsRefusedNamingTheFormThatWorks() {
        Map<String, String> env = Map.of("LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_CLIENT_A_SECRET", SECRET);
        ChannelsConfig channels = fromEnvironment(env);

        assertThat(channels.stageWebhooks().clients()).as("SmallRye Config cannot tell this id apart").isEmpty();
        assertThatThrownBy(() -> PerClientKeys.checkEnvironment(env, "LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_", "_SECRET",
                channels.stageWebhooks().clients().keySet(), "loadflow.channels.stage-webhooks.clients.<id>.secret"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_CLIENT_A_SECRET")
                .hasMessageContaining("LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS__CLIENT_A__SECRET");
    }

    @Test
    void aSlackWebhookSetFromTheEnvironmentReachesItsChannelWhateverItsDashes() {
        Map<String, String> env = Map.of("LOADFLOW_CHANNELS_SLACK_WEBHOOKS_HERO_CLIENT_B", "https://hooks.slack.example/T/B/x");
        ChannelsConfig channels = fromEnvironment(env);

        PerClientKeys.checkEnvironment(env, "LOADFLOW_CHANNELS_SLACK_WEBHOOKS_", "", channels.slack().webhooks().keySet(),
                "loadflow.channels.slack.webhooks.<id>");
        assertThat(PerClientKeys.folded(channels.slack().webhooks(), "loadflow.channels.slack.webhooks.<id>"))
                .containsKey(PerClientKeys.fold("hero-client-b"));
    }

    @Test
    void twoIdsThatFoldToOneAreRefused() {
        assertThatThrownBy(() -> PerClientKeys.folded(Map.of("client-a", 1, "client_a", 2),
                "loadflow.channels.stage-webhooks.clients.<id>.secret"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot be told apart");
        assertThat(PerClientKeys.fold("Client-A.x")).isEqualTo("client_a_x");
    }

    @Test
    void aVariableForAClientTheConfigurationHoldsPasses() {
        PerClientKeys.checkEnvironment(Map.of("LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_ACME_SECRET", SECRET, "PATH", "/bin"),
                "LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_", "_SECRET", Set.of("acme"),
                "loadflow.channels.stage-webhooks.clients.<id>.secret");
        assertThatThrownBy(() -> PerClientKeys.checkEnvironment(Map.of("LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_ACME_SECRETS", SECRET),
                "LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_", "_SECRET", Set.of("acme"),
                "loadflow.channels.stage-webhooks.clients.<id>.secret"))
                .as("a misspelt setting would be ignored too").isInstanceOf(IllegalStateException.class);
    }
}
