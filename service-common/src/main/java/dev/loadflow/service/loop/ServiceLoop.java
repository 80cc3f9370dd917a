package dev.loadflow.service.loop;

import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * The one shape of loadflow's long-running loops (the worker's receive, the dispatcher's claim,
 * the pump's fire): run passes on a platform thread until stopped, rest between passes as each
 * pass asks ({@link Rest}: wait for a wake-up, then linger), back off on failure (500 ms doubling
 * to {@code loadflow.loop.max-backoff}, 30 s by default, ended early by a wake-up), and remember
 * when the loop last went round, for liveness.
 */
public final class ServiceLoop {

    /** One pass: does the work it finds, and says how to rest before the next pass. */
    @FunctionalInterface
    public interface Pass {
        Rest run() throws InterruptedException;
    }

    static final Duration FIRST_BACKOFF = Duration.ofMillis(500);

    /** How often a backoff asks whether the database answers again (with a probe set). */
    static final Duration PROBE_EVERY = Duration.ofSeconds(1);

    private final String name;
    private final Pass pass;
    private final Waiter waiter;
    private final Clock clock;
    private final Duration maxBackoff;
    private final Logger log;
    private volatile boolean running;
    private volatile boolean stopped;
    private volatile Instant lastLoop;
    private volatile BooleanSupplier databaseAnswers;
    private Thread thread;

    /** @param maxBackoff the longest rest after a failed pass ({@code loadflow.loop.max-backoff}) */
    public ServiceLoop(String name, Pass pass, Waiter waiter, Clock clock, Duration maxBackoff) {
        if (maxBackoff.compareTo(FIRST_BACKOFF) < 0) {
            throw new IllegalArgumentException("the longest backoff must be at least " + FIRST_BACKOFF + ", got " + maxBackoff);
        }
        this.name = name;
        this.pass = pass;
        this.waiter = waiter;
        this.clock = clock;
        this.maxBackoff = maxBackoff;
        this.log = Logger.getLogger(ServiceLoop.class.getName() + "." + name);
        this.lastLoop = clock.instant();
    }

    /**
     * Ends a long backoff once the database answers again: during a backoff the loop asks
     * {@code databaseAnswers} every {@link #PROBE_EVERY}, and when it said no at least once and
     * then yes (the database was away and is back), the loop goes round at once instead of waiting
     * out the rest of the backoff. A failure while the database answers throughout (not an outage)
     * keeps its whole backoff.
     */
    public void resumeWhen(BooleanSupplier databaseAnswers) {
        this.databaseAnswers = databaseAnswers;
    }

    /** Starts the loop's thread; a second call does nothing. */
    public synchronized void start() {
        if (thread == null) {
            running = true;
            lastLoop = clock.instant();
            thread = Thread.ofPlatform().name(name).daemon().start(this::loop);
        }
    }

    /** Whether the loop was started, has not been stopped, and its thread is alive. */
    public boolean running() {
        Thread current = thread;
        return running && current != null && current.isAlive();
    }

    /**
     * Whether the loop is meant to be going round: started and not stopped. A loop not started
     * yet (waiting for the schema gate) or stopped on purpose is not; one whose thread died is.
     */
    public synchronized boolean meantToRun() {
        return thread != null && !stopped;
    }

    /** How long ago the loop last began a pass: the loop's liveness. */
    public Duration sinceLastLoop() {
        return Duration.between(lastLoop, clock.instant());
    }

    /**
     * Stops after the pass in progress: ends any rest, and waits up to {@code timeout} for the
     * thread. Returns whether it ended.
     */
    public boolean stop(Duration timeout) {
        stopped = true;
        running = false;
        waiter.wake();
        Thread current;
        synchronized (this) {
            current = thread;
        }
        if (current == null) {
            return true;
        }
        try {
            current.join(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !current.isAlive();
    }

    private void loop() {
        Duration backoff = FIRST_BACKOFF;
        while (running) {
            lastLoop = clock.instant();
            long mark = waiter.mark();
            try {
                Rest rest = pass.run();
                backoff = FIRST_BACKOFF;
                if (running && rest.untilWoken().isPositive()) {
                    waiter.awaitWake(mark, rest.untilWoken());
                }
                if (running && rest.linger().isPositive()) {
                    waiter.pause(rest.linger());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                Duration wait = backoff;
                backoff = wait.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : wait.multipliedBy(2);
                if (wait.equals(FIRST_BACKOFF)) {
                    log.errorf(e, "%s failed; going round again in %s", name, wait);
                } else {
                    // the same outage, still: one line, the stack trace was logged at its first failure
                    log.errorf("%s failed again (%s); going round again in %s", name, e, wait);
                }
                try {
                    if (running) {
                        backOff(wait);
                    }
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Waits out {@code wait}, ended early by a wake-up, or by the database's return (with a probe set). */
    private void backOff(Duration wait) throws InterruptedException {
        long mark = waiter.mark();
        BooleanSupplier probe = databaseAnswers;
        if (probe == null || wait.compareTo(PROBE_EVERY.multipliedBy(2)) <= 0) {
            waiter.awaitWake(mark, wait);
            return;
        }
        Instant until = clock.instant().plus(wait);
        boolean away = false;
        while (running) {
            Duration left = Duration.between(clock.instant(), until);
            if (!left.isPositive()) {
                return;
            }
            waiter.awaitWake(mark, left.compareTo(PROBE_EVERY) < 0 ? left : PROBE_EVERY);
            if (waiter.mark() != mark) {
                return;
            }
            if (!probe.getAsBoolean()) {
                away = true;
            } else if (away) {
                log.infof("%s: the database answers again; going round now, %s before the backoff's end", name,
                        Duration.between(clock.instant(), until).truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
                return;
            }
        }
    }
}
