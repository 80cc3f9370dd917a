package dev.loadflow.pump.fire;

import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.PgWakeups;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.queue.PgLoadQueue;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.store.timer.TimerStore;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Benchmark, not a test (excluded from the suite): the lateness of 10,000 timers due over one
 * minute, fired by real pumps on a real clock against a real PostgreSQL (fsync on). Run:
 * <pre>
 * QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/postgres \
 *   ./mvnw -B -pl timer-pump test -Dtest=TimerLatenessBenchmark -Dloadflow.excluded.groups=none [-Dbench.pumps=2]
 * </pre>
 */
@Tag("benchmark")
class TimerLatenessBenchmark {

    private static final int TIMERS = 10_000;

    @Test
    void latenessOfTenThousandTimersDueWithinOneMinute() throws java.io.IOException {
        assumeTrue(System.getenv("QUARKUS_DATASOURCE_JDBC_URL") != null,
                "benchmarks run on a real PostgreSQL with fsync on: set QUARKUS_DATASOURCE_JDBC_URL");
        int pumps = Integer.getInteger("bench.pumps", 1);
        Clock clock = Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));
        TestDatabase db = PostgresServer.get().createDatabase("bench_timers");
        Vertx vertx = Vertx.vertx();
        Pool pool = db.pool(vertx, 16);
        PgNotifications notifications = PgNotifications.listen(vertx, db.connectOptions(), Duration.ofSeconds(1),
                PgNotifications.TIMERS);
        List<TimerPump> running = new ArrayList<>();
        try {
            TimerStore timers = new PgTimerStore(pool, clock, Duration.ofSeconds(30), new PgWakeups(pool));
            PgLoadQueue queue = new PgLoadQueue(pool, clock, Duration.ofMinutes(5), notifications.signal(PgNotifications.QUEUE),
                    new PgWakeups(pool));
            Instant first = clock.instant().plusSeconds(5);
            Pg.await(pool.preparedQuery("""
                    INSERT INTO timers (timer_id, load_id, ask_id, attempt, fire_at, status, created_at)
                    SELECT 'tmr:bench-' || i || ':ask:eta_request:p:1', 'bench-' || i, 'ask:eta_request:p', 1,
                           $1::timestamptz + (i * 6) * interval '1 millisecond', 'scheduled', $2::timestamptz
                    FROM generate_series(0, $3 - 1) i""").execute(Tuple.of(Pg.at(first), Pg.at(clock.instant()), TIMERS)));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            for (int p = 0; p < pumps; p++) {
                TimerPump pump = new TimerPump(timers, queue, clock, notifications.signal(PgNotifications.TIMERS), 200,
                        Duration.ofSeconds(30), Duration.ofSeconds(30), new PumpMetrics(registry));
                pump.start();
                running.add(pump);
            }

            await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> timers.dueCount(clock.instant().plusSeconds(3600)) == 0);

            Row stats = Pg.await(pool.preparedQuery("""
                    SELECT count(*) AS fired,
                           percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM fired_at - fire_at)) * 1000 AS p50,
                           percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM fired_at - fire_at)) * 1000 AS p99,
                           max(extract(epoch FROM fired_at - fire_at)) * 1000 AS max
                    FROM timers WHERE status = 'fired'""").execute()).iterator().next();
            long queued = Pg.await(pool.preparedQuery("SELECT count(*) FROM load_queue").execute()).iterator().next().getLong(0);
            String table = String.format("%n== timer lateness: %,d timers due over 60 s, %d pump(s), %d cores, %s%n",
                    TIMERS, pumps, Runtime.getRuntime().availableProcessors(), PostgresServer.get())
                    + String.format("fired %,d   published %,d   lateness p50 %.1f ms   p99 %.1f ms   max %.1f ms%n",
                    stats.getLong("fired"), queued, stats.getDouble("p50"), stats.getDouble("p99"), stats.getDouble("max"));
            System.out.println(table);
            java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
            java.nio.file.Files.writeString(java.nio.file.Path.of("target", "benchmark-timers-" + pumps + "-pumps.txt"), table);
            assertThat(stats.getLong("fired")).isEqualTo(TIMERS);
            assertThat(queued).isEqualTo(TIMERS);
        } finally {
            running.forEach(TimerPump::stop);
            notifications.close();
            pool.close();
            vertx.close();
            db.close();
        }
    }
}
