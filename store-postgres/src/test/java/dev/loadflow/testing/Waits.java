package dev.loadflow.testing;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

import java.time.Duration;

/**
 * Awaitility as the suites use it: the condition is checked at once, then every 100 ms.
 * Awaitility's own default waits one poll interval (100 ms) before its first check, so a
 * test that waits for each of 40 loads in turn spent four seconds on conditions already
 * true. A method of its own rather than Awaitility's static defaults, since a
 * {@code @QuarkusTest} loads Awaitility in the application's class loader, apart from the
 * one JUnit starts with.
 */
public final class Waits {

    private static final Duration POLL = Duration.ofMillis(100);

    private Waits() {
    }

    public static ConditionFactory await() {
        return Awaitility.await().pollDelay(Duration.ZERO).pollInterval(POLL);
    }

    /** {@link #await()} with what is awaited named in the message of its timeout. */
    public static ConditionFactory await(String what) {
        return Awaitility.await(what).pollDelay(Duration.ZERO).pollInterval(POLL);
    }
}
