package dev.loadflow.dispatcher.claim;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;

/**
 * {@code loadflow.outbox.sends{channel,result}}, {@code loadflow.outbox.dead{channel}} (dead rows;
 * per hour = its increase over 1h), {@code loadflow.outbox.dispatch.delay{channel}} (commit to
 * first send), {@code loadflow.ops.alerts{kind}}.
 */
public final class DispatcherMetrics {

    public static final String[] CHANNELS = {"sms", "hero", "slack", "internal", "fanout"};
    static final String[] RESULTS = {"delivered", "retry", "dead", "deferred", "stale"};
    static final String[] ALERT_KINDS = {"action_dead", "outcome_unpublished"};

    private final MeterRegistry registry;

    public DispatcherMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (String channel : CHANNELS) {
            for (String result : RESULTS) {
                send(channel, result);
            }
            dead(channel);
            delay(channel);
        }
        for (String kind : ALERT_KINDS) {
            alerts(kind);
        }
    }

    private Counter send(String channel, String result) {
        return Counter.builder("loadflow.outbox.sends").description("Attempts at outbox rows, by channel and result")
                .tag("channel", channel).tag("result", result).register(registry);
    }

    private Counter dead(String channel) {
        return Counter.builder("loadflow.outbox.dead").description("Outbox rows parked (dead)")
                .tag("channel", channel).register(registry);
    }

    private Timer delay(String channel) {
        return Timer.builder("loadflow.outbox.dispatch.delay")
                .description("Time from a row's commit to its first send")
                .tag("channel", channel).publishPercentileHistogram().register(registry);
    }

    private Counter alerts(String kind) {
        return Counter.builder("loadflow.ops.alerts").description("OpsAlerts raised (pages on-call; never a Hero task)")
                .tag("kind", kind).register(registry);
    }

    void sent(String channel, String result) {
        send(channel, result).increment();
    }

    void died(String channel) {
        dead(channel).increment();
    }

    void firstSendDelay(String channel, Duration delay) {
        delay(channel).record(delay.isNegative() ? Duration.ZERO : delay);
    }

    void alert(String kind) {
        alerts(kind).increment();
    }
}
