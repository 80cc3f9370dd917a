package dev.loadflow.service.store;

import io.vertx.sqlclient.Pool;
import jakarta.inject.Singleton;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Whether the database answers now: {@code SELECT 1} through the services' pool, given one second.
 * A loop backing off after a failure asks it, so that work resumes as soon as the database is
 * back rather than at the end of a long backoff ({@link dev.loadflow.service.loop.ServiceLoop#resumeWhen}).
 */
@Singleton
public class DatabaseAnswers implements BooleanSupplier {

    private final Pool pool;

    public DatabaseAnswers(Pool pool) {
        this.pool = pool;
    }

    @Override
    public boolean getAsBoolean() {
        try {
            pool.query("SELECT 1").execute().toCompletionStage().toCompletableFuture().get(1, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
