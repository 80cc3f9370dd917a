package dev.loadflow.service.store;

import dev.loadflow.service.retention.NdjsonExport;
import dev.loadflow.service.retention.RetentionConfig;
import dev.loadflow.store.PgStores;
import dev.loadflow.store.citus.CitusStores;
import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.PgAdminAudit;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.retention.PgRetention;
import dev.loadflow.store.pg.PgNotifications;
import dev.loadflow.store.pg.PgWakeups;
import dev.loadflow.store.pg.Wakeups;
import dev.loadflow.store.queue.DeadLetters;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.PgUnrunReceives;
import dev.loadflow.store.queue.QueueBackend;
import dev.loadflow.store.queue.QueueView;
import dev.loadflow.store.queue.SqsDeadLetters;
import dev.loadflow.store.queue.SqsFifoLoadQueue;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The PostgreSQL stores every service uses, on the Quarkus reactive pool, and one LISTEN
 * connection for the NOTIFY wake-ups.
 */
@ApplicationScoped
public class StoreProducers {

    /**
     * Every PostgreSQL store is built by this: PostgreSQL's, or where Citus distributes the schema
     * ({@code loadflow.db.citus}) the distributed ones (module {@code store-citus}).
     */
    @Produces
    @Singleton
    PgStores stores(Pool pool, Clock clock, Wakeups wakeups, @ConfigProperty(name = "loadflow.db.citus") boolean citus) {
        return storesOn(pool, clock, wakeups, citus);
    }

    /** The stores on {@code pool}: Citus's when {@code citus}, else PostgreSQL's. */
    public static PgStores storesOn(Pool pool, Clock clock, Wakeups wakeups, boolean citus) {
        return citus ? new CitusStores(pool, clock, wakeups) : new PgStores(pool, clock, wakeups);
    }

    @Produces
    @Singleton
    EventStore eventStore(PgStores stores) {
        return stores.eventStore();
    }

    /**
     * What retention runs, under its own login when one is set ({@code loadflow.retention.username});
     * each service runs only its own part ({@link dev.loadflow.service.retention.RetentionJob}).
     */
    @Produces
    @Singleton
    PgRetention retention(PgStores stores, Pool pool, PoolWithoutAcquireTimer pools, RetentionConfig config, Clock clock,
                          @ConfigProperty(name = "loadflow.db.citus") boolean citus) {
        PgRetention.Export export = config.exportDir()
                .<PgRetention.Export>map(dir -> new NdjsonExport(Path.of(dir), instance(), clock))
                .orElse(PgRetention.Export.NONE);
        if (config.username().isEmpty()) {
            return stores.retention(export);
        }
        // its own login, a member of loadflow_retention: the services' own may not remove from the log
        pool.size(); // the service's own pool is made first: the other login's is made from its settings
        return storesOn(pools.asLogin(config.username().get(), config.password().orElse(""), config.maxConnections(), "retention"), clock, Wakeups.NONE,
                citus).retention(export);
    }

    /** This process among others on a shared volume: the pod's name on Kubernetes, else the process id. */
    private static String instance() {
        String host = System.getenv("HOSTNAME");
        return host == null || host.isBlank() ? "pid" + ProcessHandle.current().pid() : host;
    }

    /** The admin audit trail: every service's admin changes are recorded in it. */
    @Produces
    @Singleton
    AdminAudit adminAudit(Pool pool) {
        return new PgAdminAudit(pool);
    }

    /** NOTIFY after the commit that made the work (never inside it: see {@link PgWakeups}). */
    @Produces
    @Singleton
    Wakeups wakeups(Pool pool) {
        return new PgWakeups(pool);
    }

    /** The load queue {@code loadflow.queue.kind} names: PostgreSQL (default) or SQS FIFO. Nothing else changes. */
    @Produces
    @Singleton
    QueueBackend queueBackend(PgStores stores, Pool pool, Clock clock, QueueConfig config, PgNotifications notifications,
                              AdminAudit audits) {
        return switch (config.kind()) {
            case POSTGRES -> stores.queueBackend(config.visibilityTimeout(), notifications.signal(PgNotifications.QUEUE));
            case SQS -> {
                QueueConfig.Sqs sqs = config.sqs();
                String url = sqs.url().orElseThrow(() -> new IllegalStateException(
                        "loadflow.queue.kind=sqs needs loadflow.queue.sqs.url (the FIFO queue's URL)"));
                String deadLetter = sqs.deadLetterUrl().orElseThrow(() -> new IllegalStateException(
                        "loadflow.queue.kind=sqs needs loadflow.queue.sqs.dead-letter-url (a FIFO queue for poison)"));
                var builder = software.amazon.awssdk.services.sqs.SqsClient.builder()
                        .region(software.amazon.awssdk.regions.Region.of(sqs.region()))
                        .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create());
                sqs.endpoint().ifPresent(endpoint -> builder.endpointOverride(endpoint).credentialsProvider(
                        software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                                software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("local", "local"))));
                var client = builder.build();
                SqsFifoLoadQueue queue = new SqsFifoLoadQueue(client, url, deadLetter, config.visibilityTimeout(), clock,
                        new PgUnrunReceives(pool, clock), sqs.receiveCallsAtOnce());
                yield new QueueBackend(queue, new SqsDeadLetters(client, url, deadLetter, clock, audits), queue);
            }
        };
    }

    @Produces
    @Singleton
    LoadQueue loadQueue(QueueBackend backend) {
        return backend.queue();
    }

    @Produces
    @Singleton
    DeadLetters deadLetters(QueueBackend backend) {
        return backend.deadLetters();
    }

    @Produces
    @Singleton
    QueueView queueView(QueueBackend backend) {
        return backend.view();
    }

    /**
     * One LISTEN connection, on the channels this service waits on ({@code loadflow.db.listen}:
     * the worker the queue's, the dispatcher the outbox's, the pump the timers'). A channel it
     * does not wait on would only cost it a wake-up per notification.
     */
    @Produces
    @Singleton
    PgNotifications notifications(Vertx vertx, Pool pool, PoolWithoutAcquireTimer pools,
                                  @ConfigProperty(name = "loadflow.db.schema", defaultValue = "public") String schema,
                                  @ConfigProperty(name = "quarkus.application.name") String service,
                                  @ConfigProperty(name = "loadflow.db.listen",
                                          defaultValue = PgNotifications.QUEUE + "," + PgNotifications.OUTBOX + ","
                                                  + PgNotifications.TIMERS) List<String> channels) {
        pool.size(); // the service's pool is made first: this connection is made with its settings (its TLS too)
        PgConnectOptions options = pools.server()
                .setProperties(Map.of("search_path", schema, "application_name", service + " listen"));
        return PgNotifications.listen(vertx, options, Duration.ofSeconds(2), channels.toArray(String[]::new));
    }

    void close(@Disposes PgNotifications notifications) {
        notifications.close();
    }
}
