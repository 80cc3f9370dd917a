package dev.loadflow.store.overview;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What waits, oldest first, behind the overview's counts of the outbox backlog, late timers and
 * the queue's depth: the rows on-call opens when one of them grows. Each list is read from the
 * index its count uses, at most {@code limit} rows.
 */
public final class PgWaiting {

    /** An outbox row due and not delivered yet; {@code attempts} above 0 when it failed before. */
    public record DueRow(String outboxId, String loadId, String actionType, String channel, int attempts, Instant dueAt,
                         String lastFailure) {
    }

    /** A scheduled timer past its time. */
    public record LateTimer(String timerId, String loadId, Instant fireAt) {
    }

    /**
     * A load with messages queued: how many, since when the oldest waits, and when the queue
     * hands its head out next ({@code visibleAt}; in the past when it is ready now).
     */
    public record QueuedLoad(String loadId, long messages, Instant oldestEnqueuedAt, Instant visibleAt) {
    }

    static final String DUE = """
            SELECT outbox_id, load_id, action_type, channel, attempts, available_at, last_failure FROM outbox
            WHERE status = 'pending' AND available_at <= $1 ORDER BY available_at LIMIT $2""";

    static final String LATE = """
            SELECT timer_id, load_id, fire_at FROM timers
            WHERE status = 'scheduled' AND fire_at < $1 ORDER BY fire_at LIMIT $2""";

    static final String QUEUED = """
            SELECT g.load_id, g.visible_at,
                   (SELECT count(*) FROM load_queue q WHERE q.load_id = g.load_id) AS messages,
                   (SELECT min(q.enqueued_at) FROM load_queue q WHERE q.load_id = g.load_id) AS oldest
            FROM load_queue_group g ORDER BY g.visible_at LIMIT $1""";

    private final Pool pool;

    public PgWaiting(Pool pool) {
        this.pool = pool;
    }

    /** Outbox rows due at {@code now}, the longest due first. */
    public List<DueRow> due(Instant now, int limit) {
        List<DueRow> rows = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(DUE).execute(Tuple.of(Pg.at(now), limit)))) {
            rows.add(new DueRow(row.getString("outbox_id"), row.getString("load_id"), row.getString("action_type"),
                    row.getString("channel"), row.getInteger("attempts"), Pg.instant(row, "available_at"),
                    row.getString("last_failure")));
        }
        return rows;
    }

    /** Scheduled timers more than {@code late} past their time at {@code now}, the latest first. */
    public List<LateTimer> late(Instant now, Duration late, int limit) {
        List<LateTimer> timers = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(LATE).execute(Tuple.of(Pg.at(now.minus(late)), limit)))) {
            timers.add(new LateTimer(row.getString("timer_id"), row.getString("load_id"), Pg.instant(row, "fire_at")));
        }
        return timers;
    }

    /** Loads with messages queued on PostgreSQL, the one handed out next first (none when the queue is SQS). */
    public List<QueuedLoad> queued(int limit) {
        List<QueuedLoad> loads = new ArrayList<>();
        for (Row row : Pg.await(pool.preparedQuery(QUEUED).execute(Tuple.of(limit)))) {
            loads.add(new QueuedLoad(row.getString("load_id"), row.getLong("messages"), Pg.instant(row, "oldest"),
                    Pg.instant(row, "visible_at")));
        }
        return loads;
    }
}
