package dev.loadflow.dispatcher.protect;

import dev.loadflow.dispatcher.DispatcherConfig;
import dev.loadflow.model.action.Channel;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

/**
 * Per-destination protection: a circuit breaker and a concurrency limit per channel, so one
 * provider's outage neither burns every row's retry budget at once nor ties up every sender.
 * While a channel's circuit is open its rows are deferred untried (their attempt and budget
 * untouched); after {@code openFor} a few trial sends decide whether it closes again.
 */
public final class ChannelGuards {

    /** A right to send one request to a channel; report how it went exactly once. */
    public interface Permit {
        void succeeded(long nanos);

        void failed(long nanos, String reason);

        /** Neither success nor failure (for example a 4xx: the provider is up). */
        void released();
    }

    /** Told when a channel's circuit opens (again) or closes; must not throw. */
    public interface CircuitListener {
        CircuitListener NONE = new CircuitListener() {
            @Override
            public void opened(Channel channel, Duration openFor) {
            }

            @Override
            public void closed(Channel channel) {
            }
        };

        void opened(Channel channel, Duration openFor);

        void closed(Channel channel);
    }

    private final DispatcherConfig.Circuit circuit;
    private final ToIntFunction<Channel> maxConcurrency;
    private final MeterRegistry registry;
    private final CircuitListener listener;
    private final Map<Channel, Guard> guards = new ConcurrentHashMap<>();

    public ChannelGuards(DispatcherConfig.Circuit circuit, ToIntFunction<Channel> maxConcurrency, MeterRegistry registry,
                         CircuitListener listener) {
        this.circuit = circuit;
        this.maxConcurrency = maxConcurrency;
        this.registry = registry;
        this.listener = listener;
    }

    /**
     * A permit for {@code channel}: empty while its circuit is open. Waits (on a virtual
     * thread) for a free slot when the channel's concurrency limit is reached.
     */
    public Optional<Permit> acquire(Channel channel) throws InterruptedException {
        Guard guard = guard(channel);
        // the slot first: a send that waited for one must still find the circuit closed
        guard.slots.acquire();
        if (!guard.breaker.tryAcquirePermission()) {
            guard.slots.release();
            return Optional.empty();
        }
        return Optional.of(new Permit() {
            @Override
            public void succeeded(long nanos) {
                guard.slots.release();
                guard.breaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void failed(long nanos, String reason) {
                guard.slots.release();
                guard.breaker.onError(nanos, TimeUnit.NANOSECONDS, new ChannelFailure(reason));
            }

            @Override
            public void released() {
                guard.slots.release();
                guard.breaker.releasePermission();
            }
        });
    }

    /** How long an open circuit waits before trial calls: when deferred rows are due again. */
    public Duration openFor() {
        return circuit.openFor();
    }

    public CircuitBreaker.State state(Channel channel) {
        return guard(channel).breaker.getState();
    }

    private Guard guard(Channel channel) {
        return guards.computeIfAbsent(channel, name -> {
            CircuitBreaker breaker = CircuitBreaker.of(name.wire(), CircuitBreakerConfig.custom()
                    .failureRateThreshold(circuit.failureRateThreshold())
                    .slidingWindowSize(circuit.slidingWindow())
                    .minimumNumberOfCalls(circuit.minimumCalls())
                    .waitDurationInOpenState(circuit.openFor())
                    .automaticTransitionFromOpenToHalfOpenEnabled(false)
                    .permittedNumberOfCallsInHalfOpenState(3)
                    .build());
            Gauge.builder("loadflow.channel.circuit.state", breaker, b -> switch (b.getState()) {
                        case CLOSED -> 0;
                        case HALF_OPEN -> 1;
                        default -> 2;
                    }).description("Circuit of a channel: 0 closed, 1 half-open, 2 open")
                    .tag("channel", name.wire()).strongReference(true).register(registry);
            breaker.getEventPublisher().onStateTransition(event -> {
                switch (event.getStateTransition().getToState()) {
                    case OPEN, FORCED_OPEN -> listener.opened(name, circuit.openFor());
                    case CLOSED -> listener.closed(name);
                    default -> { } // half-open: still holding rows back, trial calls decide
                }
            });
            return new Guard(breaker, new Semaphore(Math.max(1, maxConcurrency.applyAsInt(name))));
        });
    }

    /** Registers the gauges of {@code channels} at start-up, so they exist before the first send. */
    public void register(Channel... channels) {
        for (Channel channel : channels) {
            guard(channel);
        }
    }

    private record Guard(CircuitBreaker breaker, Semaphore slots) {
    }

    /** What the breaker counts as a failed call. */
    static final class ChannelFailure extends RuntimeException {
        ChannelFailure(String reason) {
            super(reason, null, false, false);
        }
    }
}
