package dev.loadflow.worker.policy;

import dev.loadflow.model.policy.SopRules;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SOP per client ({@code loadflow.sop.*}): {@code loadflow.sop.clients.<clientId>.<key>}
 * overrides {@code loadflow.sop.default.<key>} key by key.
 */
@ConfigMapping(prefix = "loadflow.sop")
public interface SopConfig {

    /** The rules of a client without an entry of its own, and of each key a client leaves out. */
    @WithName("default")
    Defaults defaults();

    /** Per-client overrides, by client id (as in {@code LoadAssigned.clientId}); a client's stored SOP versions come first. */
    Map<String, Overrides> clients();

    /**
     * How often a worker reads the stored SOP versions again when no notification of a new one
     * came (a notification makes it read them at once).
     */
    @WithDefault("PT1M")
    Duration refresh();

    interface Defaults {
        /** How long to wait for the driver's answer before the next attempt (ISO duration). */
        @WithDefault("PT30M")
        Duration retryAfter();

        /** ETA requests sent before a Hero takes over. */
        @WithDefault("3")
        int maxAttempts();

        /** The ETA request SMS; {loadId} and {attempt} are replaced. */
        @WithDefault("Dispatch here about load {loadId}: what is your ETA? Reply to this message.")
        String etaRequestText();

        /** The Hero Slack channel for answers. */
        @WithDefault("#hero-desk")
        String heroSlackChannel();
    }

    interface Overrides {
        /** See {@link Defaults#retryAfter()}. */
        Optional<Duration> retryAfter();

        /** See {@link Defaults#maxAttempts()}. */
        Optional<Integer> maxAttempts();

        /** See {@link Defaults#etaRequestText()}. */
        Optional<String> etaRequestText();

        /** See {@link Defaults#heroSlackChannel()}. */
        Optional<String> heroSlackChannel();

        /**
         * The client's webhooks told of each stage change ({@code stage_changed}: {@code POST {url}}
         * {@code {"loadId", "stage", "at"}}, {@code Idempotency-Key} = the outbox id), comma-separated.
         * None by default.
         */
        Optional<List<URI>> stageWebhooks();
    }

    /** The rules of {@code clientId} ({@code null} for a load not assigned yet). */
    default SopRules rulesFor(String clientId) {
        Defaults d = defaults();
        Overrides o = clientId == null ? null : clients().get(clientId);
        if (o == null) {
            return new SopRules(d.retryAfter(), d.maxAttempts(), d.etaRequestText(), d.heroSlackChannel());
        }
        return new SopRules(o.retryAfter().orElse(d.retryAfter()), o.maxAttempts().orElse(d.maxAttempts()),
                o.etaRequestText().orElse(d.etaRequestText()), o.heroSlackChannel().orElse(d.heroSlackChannel()),
                o.stageWebhooks().orElse(List.of()));
    }
}
