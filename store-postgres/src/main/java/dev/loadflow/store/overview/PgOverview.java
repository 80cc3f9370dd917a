package dev.loadflow.store.overview;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The state of things at a glance, read from PostgreSQL for the console's overview: what needs
 * an operator now, and what happened over the last hours in equal intervals. Every query is
 * served by an index on the time or status it filters by (none scans a table that grows with the
 * loads' history), so the page may refresh itself every half minute.
 */
public final class PgOverview {

    /** A scheduled timer this far past its time is late (the pump's pass and a batch take less). */
    public static final Duration TIMER_LATE = Duration.ofSeconds(30);

    /**
     * What needs looking at now.
     *
     * @param heldLoads   loads stopped at a message that cannot be processed
     * @param deadLastDay outbox rows that died in the last 24 hours
     * @param ambiguous   sends that may or may not have reached a provider, waiting for an operator
     * @param openAlerts  ops alerts nobody acknowledged (or replayed the row of)
     * @param outboxDue   outbox rows due now and not delivered yet
     * @param oldestDue   how long the oldest of them has been due (zero when none)
     * @param queued      messages in the load queue on PostgreSQL (none when the queue is SQS)
     * @param timersLate  scheduled timers more than {@link #TIMER_LATE} past their time
     */
    public record Counts(long heldLoads, long deadLastDay, long ambiguous, long openAlerts, long outboxDue,
                         Duration oldestDue, long queued, long timersLate) {
    }

    /**
     * The last hours in {@code buckets} equal intervals of {@code width} from {@code from}.
     *
     * @param inbound         events the sources posted (assignments, pings, drivers' SMS), as logged
     * @param sentByChannel   outbox rows delivered, by channel
     * @param dead            outbox rows that died
     * @param timerLateness   the latest a fired timer fired after its time, in seconds (0 where none fired)
     */
    public record Activity(Instant from, Duration width, int buckets, long[] inbound, Map<String, long[]> sentByChannel,
                           long[] dead, double[] timerLateness) {
    }

    static final String COUNTS = """
            SELECT (SELECT count(*) FROM held_load) AS held,
                   (SELECT count(*) FROM outbox WHERE status = 'dead' AND dead_at >= $1) AS dead_day,
                   (SELECT count(*) FROM outbox WHERE status = 'ambiguous') AS ambiguous,
                   (SELECT count(*) FROM ops_alert WHERE acknowledged_at IS NULL) AS open_alerts,
                   (SELECT count(*) FROM outbox WHERE status = 'pending' AND available_at <= $2) AS due,
                   (SELECT min(available_at) FROM outbox WHERE status = 'pending' AND available_at <= $2) AS oldest_due,
                   (SELECT count(*) FROM load_queue) AS queued,
                   (SELECT count(*) FROM timers WHERE status = 'scheduled' AND fire_at < $3) AS timers_late""";

    /** The interval a time falls in: $1 the first interval's start, $3 an interval's seconds. */
    private static final String BUCKET = "floor(extract(epoch FROM %s - $1::timestamptz) / $3::int)::int";

    static final String INBOUND = "SELECT " + BUCKET.formatted("recorded_at") + """
             AS b, count(*) AS n FROM event_log
            WHERE recorded_at >= $1 AND recorded_at < $2 AND kind = 'event' AND type NOT IN ('TimerFired', 'ActionOutcome')
            GROUP BY b""";

    static final String SENT = "SELECT channel, " + BUCKET.formatted("dispatched_at") + """
             AS b, count(*) AS n FROM outbox
            WHERE status = 'dispatched' AND dispatched_at >= $1 AND dispatched_at < $2
            GROUP BY channel, b""";

    static final String DEAD = "SELECT " + BUCKET.formatted("dead_at") + """
             AS b, count(*) AS n FROM outbox
            WHERE status = 'dead' AND dead_at >= $1 AND dead_at < $2
            GROUP BY b""";

    static final String LATENESS = "SELECT " + BUCKET.formatted("coalesce(fired_at, cancelled_at)") + """
             AS b, max(extract(epoch FROM fired_at - fire_at))::float8 AS late FROM timers
            WHERE status <> 'scheduled' AND coalesce(fired_at, cancelled_at) >= $1 AND coalesce(fired_at, cancelled_at) < $2
              AND status = 'fired'
            GROUP BY b""";

    private final Pool pool;

    public PgOverview(Pool pool) {
        this.pool = pool;
    }

    public Counts counts(Instant now) {
        Row row = Pg.await(pool.preparedQuery(COUNTS).execute(Tuple.of(Pg.at(now.minus(Duration.ofDays(1))), Pg.at(now),
                Pg.at(now.minus(TIMER_LATE))))).iterator().next();
        Instant oldest = Pg.instant(row, "oldest_due");
        return new Counts(row.getLong("held"), row.getLong("dead_day"), row.getLong("ambiguous"), row.getLong("open_alerts"),
                row.getLong("due"), oldest == null ? Duration.ZERO : Duration.between(oldest, now), row.getLong("queued"),
                row.getLong("timers_late"));
    }

    /** The {@code buckets} intervals of {@code width} that end at {@code now}. */
    public Activity activity(Instant now, Duration width, int buckets) {
        Instant from = now.minus(width.multipliedBy(buckets));
        Tuple range = Tuple.of(Pg.at(from), Pg.at(now), (int) width.toSeconds());
        long[] inbound = new long[buckets];
        for (Row row : Pg.await(pool.preparedQuery(INBOUND).execute(range))) {
            add(inbound, row.getInteger("b"), row.getLong("n"));
        }
        Map<String, long[]> sent = new TreeMap<>();
        for (Row row : Pg.await(pool.preparedQuery(SENT).execute(range))) {
            add(sent.computeIfAbsent(row.getString("channel"), c -> new long[buckets]), row.getInteger("b"), row.getLong("n"));
        }
        long[] dead = new long[buckets];
        for (Row row : Pg.await(pool.preparedQuery(DEAD).execute(range))) {
            add(dead, row.getInteger("b"), row.getLong("n"));
        }
        double[] lateness = new double[buckets];
        for (Row row : Pg.await(pool.preparedQuery(LATENESS).execute(range))) {
            int b = row.getInteger("b");
            if (b >= 0 && b < buckets) {
                lateness[b] = Math.max(0, row.getDouble("late"));
            }
        }
        return new Activity(from, width, buckets, inbound, sent, dead, lateness);
    }

    private static void add(long[] series, int bucket, long n) {
        if (bucket >= 0 && bucket < series.length) {
            series[bucket] += n;
        }
    }
}
