package dev.loadflow.dispatcher.protect;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.loadflow.dispatcher.DispatcherConfig;
import dev.loadflow.model.action.Channel;
import dev.loadflow.service.pace.Rates;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * Per-destination pacing and protection, so that each channel is sent to at the pace its provider
 * takes and one provider's slowness or outage never holds back another's rows:
 * <ul>
 *   <li>an adaptive limit of requests in flight ({@link PaceLimit}, from Netflix concurrency-limits'
 *       algorithms): it grows while the provider's latency holds and shrinks as latency rises or
 *       when the provider says it is over capacity (429, 503), up to the channel's
 *       {@link Pace#maxConcurrency ceiling};</li>
 *   <li>a rate ({@link Pace#rate}, messages per second per instance; 0 = none): a provider's
 *       published limit, divided among the dispatchers;</li>
 *   <li>a pause when the provider answers 429 or 503 with {@code Retry-After}: nothing more is
 *       sent to it until then (its rows are given back untried, never past their retry budget);</li>
 *   <li>a circuit breaker: while a channel's circuit is open its rows are deferred untried (their
 *       attempt and budget untouched); after {@code openFor} a few trial sends decide whether it
 *       closes again.</li>
 * </ul>
 * The dispatcher claims a channel's rows only up to its {@link #capacity}, so a claimed row finds
 * its slot free, or one about to free, and another channel's rows never wait for it.
 */
public final class ChannelGuards {

    /** How fast one channel may be sent to: the ceiling of its adaptive in-flight limit, and a rate (0: none). */
    public record Pace(int maxConcurrency, double rate) {

        public Pace {
            if (maxConcurrency < 1) {
                throw new IllegalArgumentException("a channel's max-concurrency is at least 1, got " + maxConcurrency);
            }
            if (rate < 0) {
                throw new IllegalArgumentException("a channel's rate is 0 (none) or more, got " + rate);
            }
        }
    }

    /** A right to send one request to a channel; report how it went exactly once. */
    public interface Permit {
        void succeeded(long nanos);

        void failed(long nanos, String reason);

        /**
         * The provider refused for want of capacity (429, 503): the in-flight limit shrinks, and with
         * {@code retryAfter} nothing more is sent to it until that has passed.
         */
        void overloaded(long nanos, String reason, Optional<Duration> retryAfter);

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

    /** How long a claimed row may wait for its channel's slot or rate before it is given back. */
    static final Duration LONGEST_WAIT = Duration.ofSeconds(20);
    /** Where a channel's adaptive limit starts (below its ceiling): it grows from here within seconds. */
    static final int INITIAL_LIMIT = 50;

    private final DispatcherConfig.Circuit circuit;
    private final Function<Channel, Pace> paces;
    private final MeterRegistry registry;
    private final CircuitListener listener;
    private final LongSupplier nanos;
    private final Map<Channel, Guard> guards = new ConcurrentHashMap<>();

    /** Guards whose channels each have {@code maxConcurrency} as their ceiling and no rate. */
    public ChannelGuards(DispatcherConfig.Circuit circuit, ToIntFunction<Channel> maxConcurrency,
                         MeterRegistry registry, CircuitListener listener) {
        this(circuit, channel -> new Pace(Math.max(1, maxConcurrency.applyAsInt(channel)), 0), registry, listener,
                System::nanoTime);
    }

    /** @param nanos a monotonic clock for latencies and pauses (a test's controllable one) */
    public ChannelGuards(DispatcherConfig.Circuit circuit, Function<Channel, Pace> paces, MeterRegistry registry,
                         CircuitListener listener, LongSupplier nanos) {
        this.circuit = circuit;
        this.paces = paces;
        this.registry = registry;
        this.listener = listener;
        this.nanos = nanos;
    }

    /**
     * A permit for {@code channel}: empty while its circuit is open. Waits (on a virtual thread) for
     * the channel's rate and for a slot under its in-flight limit, at most {@link #LONGEST_WAIT}
     * (then empty too: the row is given back untried).
     */
    public Optional<Permit> acquire(Channel channel) {
        Guard guard = guard(channel);
        // the provider asked for a pause: nothing is sent to it until then (the row is given back for that long)
        if (guard.pausedUntil.get() - nanos.getAsLong() > 0) {
            return Optional.empty();
        }
        // the rate first: time spent waiting for it must not count as the provider's latency
        if (guard.rate != null && !guard.rate.acquirePermission()) {
            return Optional.empty();
        }
        // the limit may have shrunk since the row was claimed: a slot frees as a request in flight ends
        Optional<Limiter.Listener> slot = guard.slots.acquire(null);
        if (slot.isEmpty()) {
            return Optional.empty();
        }
        // a send that waited for its slot must still find the circuit closed
        if (!guard.breaker.tryAcquirePermission()) {
            slot.get().onIgnore();
            return Optional.empty();
        }
        Limiter.Listener inFlight = slot.get();
        return Optional.of(new Permit() {
            @Override
            public void succeeded(long took) {
                inFlight.onSuccess();
                guard.breaker.onSuccess(took, TimeUnit.NANOSECONDS);
            }

            @Override
            public void failed(long took, String reason) {
                // no answer (a timeout, a reset): the request says nothing of the provider's pace
                inFlight.onIgnore();
                guard.breaker.onError(took, TimeUnit.NANOSECONDS, new ChannelFailure(reason));
            }

            @Override
            public void overloaded(long took, String reason, Optional<Duration> retryAfter) {
                inFlight.onDropped();
                retryAfter.ifPresent(wait -> guard.pauseFor(wait, nanos.getAsLong()));
                guard.breaker.onError(took, TimeUnit.NANOSECONDS, new ChannelFailure(reason));
            }

            @Override
            public void released() {
                inFlight.onIgnore();
                guard.breaker.releasePermission();
            }
        });
    }

    /**
     * How many rows of {@code channel} a dispatcher may hold at once: twice its in-flight limit (as
     * many again ready to go the moment a request ends, so a slot never waits for a claim), but with
     * a rate at most one second of it. A claim asks for no more than this less what it already
     * holds. While the provider asked for a pause, or the circuit is open, the rows claimed are given
     * back untried until then, or until their retry budget ends: a row whose budget is spent while
     * its channel is unavailable dies, and its load hears of it within the budget.
     */
    public int capacity(Channel channel) {
        Guard guard = guard(channel);
        int limit = guard.limiter.getLimit();
        return guard.rate == null ? 2 * limit : Math.min(limit, (int) Math.max(1, Math.ceil(paces.apply(channel).rate())));
    }

    /** How long an open circuit waits before trial calls: when deferred rows are due again. */
    public Duration openFor() {
        return circuit.openFor();
    }

    /**
     * How long a row of {@code channel} given back untried waits: until the provider's pause ends
     * when it asked for one, else the open circuit's wait before its trial calls.
     */
    public Duration openFor(Channel channel) {
        long paused = guard(channel).pausedUntil.get() - nanos.getAsLong();
        return paused > 0 ? Duration.ofNanos(paused) : circuit.openFor();
    }

    public CircuitBreaker.State state(Channel channel) {
        return guard(channel).breaker.getState();
    }

    private Guard guard(Channel channel) {
        return guards.computeIfAbsent(channel, this::newGuard);
    }

    private Guard newGuard(Channel name) {
        Pace pace = paces.apply(name);
        CircuitBreaker breaker = CircuitBreaker.of(name.wire(), CircuitBreakerConfig.custom()
                .failureRateThreshold(circuit.failureRateThreshold())
                .slidingWindowSize(circuit.slidingWindow())
                .minimumNumberOfCalls(circuit.minimumCalls())
                .waitDurationInOpenState(circuit.openFor())
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .permittedNumberOfCallsInHalfOpenState(3)
                .build());
        SimpleLimiter<Void> limiter = SimpleLimiter.newBuilder().named(name.wire()).nanoClock(nanos)
                .limit(new PaceLimit(Math.min(INITIAL_LIMIT, pace.maxConcurrency()), Math.min(INITIAL_LIMIT, pace.maxConcurrency()),
                        pace.maxConcurrency(), LONGEST_WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .build();
        RateLimiter rate = pace.rate() == 0 ? null : RateLimiter.of(name.wire(), perSecond(pace.rate()));
        Guard guard = new Guard(breaker, limiter, new QueuedSlots(limiter, LONGEST_WAIT), rate,
                new AtomicLong(nanos.getAsLong()));
        Gauge.builder("loadflow.channel.circuit.state", breaker, b -> switch (b.getState()) {
                    case CLOSED -> 0;
                    case HALF_OPEN -> 1;
                    default -> 2;
                }).description("Circuit of a channel: 0 closed, 1 half-open, 2 open")
                .tag("channel", name.wire()).strongReference(true).register(registry);
        Gauge.builder("loadflow.channel.limit", limiter, SimpleLimiter::getLimit)
                .description("A channel's adaptive limit of requests in flight per instance")
                .tag("channel", name.wire()).strongReference(true).register(registry);
        Gauge.builder("loadflow.channel.inflight", limiter, SimpleLimiter::getInflight)
                .description("A channel's requests in flight on this instance")
                .tag("channel", name.wire()).strongReference(true).register(registry);
        breaker.getEventPublisher().onStateTransition(event -> {
            switch (event.getStateTransition().getToState()) {
                case OPEN, FORCED_OPEN -> listener.opened(name, circuit.openFor());
                case CLOSED -> listener.closed(name);
                default -> { } // half-open: still holding rows back, trial calls decide
            }
        });
        return guard;
    }

    /** A channel's rate: whole permits per refresh period, a send waiting up to {@link #LONGEST_WAIT} for one. */
    static RateLimiterConfig perSecond(double rate) {
        return Rates.perSecond(rate, LONGEST_WAIT);
    }

    /** Registers the gauges of {@code channels} at start-up, so they exist before the first send. */
    public void register(Channel... channels) {
        for (Channel channel : channels) {
            guard(channel);
        }
    }

    /** @param slots the limiter, each row waiting its turn up to {@link #LONGEST_WAIT} for a slot */
    private record Guard(CircuitBreaker breaker, SimpleLimiter<Void> limiter, Limiter<Void> slots, RateLimiter rate,
                         AtomicLong pausedUntil) {

        void pauseFor(Duration wait, long now) {
            pausedUntil.accumulateAndGet(now + wait.toNanos(), Math::max);
        }
    }

    /** What the breaker counts as a failed call. */
    static final class ChannelFailure extends RuntimeException {
        ChannelFailure(String reason) {
            super(reason, null, false, false);
        }
    }
}
