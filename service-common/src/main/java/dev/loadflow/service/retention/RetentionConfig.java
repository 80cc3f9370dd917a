package dev.loadflow.service.retention;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** How long what the services keep stays ({@code loadflow.retention.*}). */
@ConfigMapping(prefix = "loadflow.retention")
public interface RetentionConfig {

    /** A load with no new log entry for this long leaves the hot log for {@code event_log_archive}. */
    @WithDefault("P90D")
    Duration log();

    /** Dead outbox rows (with their failures), ops alerts and parked queue messages are deleted this long after they died. */
    @WithDefault("P30D")
    Duration dead();

    /**
     * Fan-out handlers' records of what they processed ({@code processed_event}) are deleted this
     * long after. Longer than {@link #dead}: a dead row replayed before it is deleted must still
     * skip the webhooks that already had it.
     */
    @WithDefault("P31D")
    Duration processed();

    /**
     * The longest a load goes on taking decisions (two days to two weeks): what dedupe horizons are
     * held to. A dispatched outbox row is the record that an action was taken: kept shorter than
     * this, a decision repeated later would not be caught and its action would be taken again.
     */
    @WithDefault("P14D")
    Duration loadLifetime();

    /**
     * Dispatched outbox rows are deleted this long after they were sent. At least
     * {@link #loadLifetime} (checked at start): a dispatched row is what catches a decision
     * repeated later. Read from {@code loadflow.dispatcher.retention} when only that is set.
     */
    @WithDefault("P15D")
    Duration dispatched();

    /** Fired and cancelled timers are deleted this long after they ended. Read from {@code loadflow.pump.retention} when only that is set. */
    @WithDefault("P7D")
    Duration timers();

    /** How often each service runs its part of retention (the worker the log and parked messages; the dispatcher the rest). */
    @WithDefault("PT1H")
    Duration interval();

    /**
     * The parts of retention this service runs (set by each service's own properties: the
     * worker {@code log,parked}, the dispatcher {@code dispatched,dead-outbox,alerts,processed},
     * the pump {@code timers}); unset, none.
     */
    Optional<Set<RetentionJob.Part>> parts();

    /**
     * A directory (a volume that outlives the pod) where what retention deletes from
     * {@code outbox} (dead rows, with their failures), {@code ops_alert} and
     * {@code load_queue_dead} is written first, as NDJSON ({@link NdjsonExport}); unset, those
     * rows are deleted without a copy.
     */
    Optional<String> exportDir();

    /**
     * The login retention runs under, a member of {@code loadflow_retention} (env
     * {@code LOADFLOW_RETENTION_USERNAME}, in the Secret with {@code .password}): the services'
     * own role may append to the log and never remove from it. Unset, retention runs under the
     * services' login, which the schema lets do no more than append to the log.
     */
    Optional<String> username();

    /** The password of {@link #username}. */
    Optional<String> password();

    /** Rows looked at (log) or deleted per statement: each batch is one short transaction. */
    @WithDefault("500")
    int batchSize();

    /**
     * The most connections retention's own login holds (with {@link #username}): its batches run
     * one after another, so one is enough; part of the pod's connection budget.
     */
    @WithDefault("1")
    int maxConnections();
}
