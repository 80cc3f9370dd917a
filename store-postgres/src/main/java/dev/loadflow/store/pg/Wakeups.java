package dev.loadflow.store.pg;

/**
 * Tells the listeners of a channel, after a commit, that there is new work for them (NOTIFY on
 * {@link PgNotifications}' channels). A wake-up only shortens a wait: every consumer also
 * polls, so one that never arrives costs latency, never work.
 */
@FunctionalInterface
public interface Wakeups {

    /** Wakes nobody: consumers find the work at their next poll. */
    Wakeups NONE = channel -> { };

    /** Call after the commit that made the work, never inside its transaction. */
    void wake(String channel);

    /**
     * Wakes for work that is due only at {@code due} (a timer): a listener already planning to
     * look before then may sleep on. By default a plain wake.
     */
    default void wake(String channel, java.time.Instant due) {
        wake(channel);
    }
}
