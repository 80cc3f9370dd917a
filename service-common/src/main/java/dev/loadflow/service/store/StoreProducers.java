package dev.loadflow.service.store;

import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.PgLoadQueue;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The PostgreSQL stores every service uses, on the Quarkus reactive pool, and one LISTEN
 * connection for the NOTIFY wake-ups.
 */
@ApplicationScoped
public class StoreProducers {

    @Produces
    @Singleton
    EventStore eventStore(Pool pool, Clock clock) {
        return new PgEventStore(pool, clock);
    }

    @Produces
    @Singleton
    LoadQueue loadQueue(Pool pool, Clock clock, QueueConfig config, PgNotifications notifications) {
        return new PgLoadQueue(pool, clock, config.visibilityTimeout(), notifications.signal(PgNotifications.QUEUE));
    }

    @Produces
    @Singleton
    PgNotifications notifications(Vertx vertx,
                                  @ConfigProperty(name = "quarkus.datasource.reactive.url") String url,
                                  @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
                                  @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password,
                                  @ConfigProperty(name = "loadflow.db.schema", defaultValue = "public") String schema) {
        PgConnectOptions options = PgConnectOptions.fromUri(url)
                .setProperties(Map.of("search_path", schema, "application_name", "loadflow-listen"));
        user.ifPresent(options::setUser);
        password.ifPresent(options::setPassword);
        return PgNotifications.listen(vertx, options, Duration.ofSeconds(2),
                PgNotifications.OUTBOX, PgNotifications.TIMERS, PgNotifications.QUEUE);
    }

    void close(@Disposes PgNotifications notifications) {
        notifications.close();
    }
}
