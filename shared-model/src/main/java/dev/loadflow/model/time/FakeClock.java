package dev.loadflow.model.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that only moves when told to. Evals and tests drive the real worker,
 * dispatcher and pump code with it: advance the clock, pump timers, process the queue,
 * dispatch the outbox. Safe to share between threads.
 */
public final class FakeClock extends Clock {

    private final AtomicReference<Instant> now;
    private final ZoneId zone;

    private FakeClock(AtomicReference<Instant> now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /** A clock standing at {@code start}, in UTC. */
    public static FakeClock at(Instant start) {
        return new FakeClock(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
    }

    /** A clock standing at {@code isoInstant}, e.g. {@code "2026-11-30T07:00:00Z"}. */
    public static FakeClock at(String isoInstant) {
        return at(Instant.parse(isoInstant));
    }

    /** Moves the clock forward; a negative duration is refused (time never runs back). */
    public Instant advance(Duration by) {
        if (by.isNegative()) {
            throw new IllegalArgumentException("a clock never runs back: " + by);
        }
        return now.updateAndGet(t -> t.plus(by));
    }

    /** Sets the clock to {@code instant}, which must not lie before the current time. */
    public Instant set(Instant instant) {
        return now.updateAndGet(t -> {
            if (instant.isBefore(t)) {
                throw new IllegalArgumentException("a clock never runs back: " + t + " -> " + instant);
            }
            return instant;
        });
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new FakeClock(now, zone);
    }

    @Override
    public String toString() {
        return "FakeClock[" + now.get() + "]";
    }
}
