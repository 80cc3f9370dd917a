package dev.loadflow.testing;

import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.PgWakeups;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;

/**
 * A JUnit extension giving a PostgreSQL contract suite its own migrated database, a Vert.x
 * pool and LISTEN/NOTIFY wake-ups; register it as a static field with
 * {@code @RegisterExtension}. Everything is dropped after the suite (on a Citus coordinator the
 * schema is emptied and lent to the next suite: {@link PostgresServer#lendDatabase}).
 */
public final class PgBackend implements BeforeAllCallback, AfterAllCallback {

    private final String purpose;
    private Vertx vertx;
    private TestDatabase database;
    private Pool pool;
    private PgNotifications notifications;
    private PgWakeups wakeups;

    public PgBackend(String purpose) {
        this.purpose = purpose;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        database = PostgresServer.get().lendDatabase(purpose);
        vertx = Vertx.vertx();
        pool = database.pool(vertx, 16);
        notifications = PgNotifications.listen(vertx, database.connectOptions(), Duration.ofSeconds(1),
                PgNotifications.OUTBOX, PgNotifications.TIMERS, PgNotifications.QUEUE, PgNotifications.SOP);
        wakeups = new PgWakeups(pool);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        notifications.close();
        pool.close().toCompletionStage().toCompletableFuture().join();
        vertx.close().toCompletionStage().toCompletableFuture().join();
        database.close();
    }

    public Pool pool() {
        return pool;
    }

    public TestDatabase database() {
        return database;
    }

    public PgNotifications notifications() {
        return notifications;
    }

    /** The NOTIFY side: what the stores tell after a commit, heard by {@link #notifications()}. */
    public PgWakeups wakeups() {
        return wakeups;
    }
}
