package dev.loadflow.service.loop;

import java.time.Duration;

/**
 * What a pass of a {@link ServiceLoop} asks for before the next one: wait for a wake-up for at
 * most {@code untilWoken} (a {@code NOTIFY} ends it early), then pause for {@code linger} (which
 * nothing but a stop ends). Both zero: go round at once.
 */
public record Rest(Duration untilWoken, Duration linger) {

    public static final Rest NONE = new Rest(Duration.ZERO, Duration.ZERO);

    public Rest {
        if (untilWoken.isNegative() || linger.isNegative()) {
            throw new IllegalArgumentException("a rest cannot be negative: " + untilWoken + ", " + linger);
        }
    }

    /** Nothing to do now: wait for a wake-up, at most {@code timeout}. */
    public static Rest idle(Duration timeout) {
        return new Rest(timeout, Duration.ZERO);
    }

    /** Work was found but less than a batch: let more gather for {@code linger}. */
    public static Rest linger(Duration linger) {
        return new Rest(Duration.ZERO, linger);
    }

    /** This rest followed by a linger. */
    public Rest thenLinger(Duration more) {
        return new Rest(untilWoken, linger.plus(more));
    }
}
