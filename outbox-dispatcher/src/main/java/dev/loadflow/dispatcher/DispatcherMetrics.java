package dev.loadflow.dispatcher;

import dev.loadflow.model.action.Channel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;

/**
 * {@code loadflow.outbox.sends{channel,result}}, {@code loadflow.outbox.dead{channel}} (dead rows;
 * per hour = its increase over 1h), {@code loadflow.outbox.dispatch.delay{channel}} (commit to
 * first send), {@code loadflow.ops.alerts{kind}}. Every series exists from start-up, at zero.
 */
public final class DispatcherMetrics {

    /** What became of one attempt at a row. */
    public enum Result {
        DELIVERED, RETRY, DEAD, DEFERRED, STALE,
        /** Parked for an operator: the answer was lost on a channel that keeps no idempotency key. */
        AMBIGUOUS;

        String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Why on-call was paged. */
    public enum AlertKind {
        ACTION_DEAD, OUTCOME_UNPUBLISHED,
        /** A send may or may not have reached its provider: an operator decides. */
        ACTION_AMBIGUOUS;

        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final MeterRegistry registry;

    public DispatcherMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (Channel channel : Channel.values()) {
            for (Result result : Result.values()) {
                send(channel, result);
            }
            dead(channel);
            delay(channel);
        }
        for (AlertKind kind : AlertKind.values()) {
            alerts(kind);
        }
    }

    private Counter send(Channel channel, Result result) {
        return Counter.builder("loadflow.outbox.sends").description("Attempts at outbox rows, by channel and result")
                .tag("channel", channel.wire()).tag("result", result.tag()).register(registry);
    }

    private Counter dead(Channel channel) {
        return Counter.builder("loadflow.outbox.dead").description("Outbox rows parked (dead)")
                .tag("channel", channel.wire()).register(registry);
    }

    private Timer delay(Channel channel) {
        return Timer.builder("loadflow.outbox.dispatch.delay")
                .description("Time from a row's commit to its first send")
                .tag("channel", channel.wire()).publishPercentileHistogram().register(registry);
    }

    private Counter alerts(AlertKind kind) {
        return Counter.builder("loadflow.ops.alerts").description("OpsAlerts raised (pages on-call; never a Hero task)")
                .tag("kind", kind.tag()).register(registry);
    }

    public void sent(Channel channel, Result result) {
        send(channel, result).increment();
    }

    public void died(Channel channel) {
        dead(channel).increment();
    }

    public void firstSendDelay(Channel channel, Duration delay) {
        delay(channel).record(delay.isNegative() ? Duration.ZERO : delay);
    }

    public void alert(AlertKind kind) {
        alerts(kind).increment();
    }
}
