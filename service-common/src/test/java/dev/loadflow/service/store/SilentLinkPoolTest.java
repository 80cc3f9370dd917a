package dev.loadflow.service.store;

import dev.loadflow.service.testing.UnreliableLink;
import dev.loadflow.store.pg.Pg;
import dev.loadflow.store.pg.SilentLinkException;
import dev.loadflow.testing.PostgresServer;
import dev.loadflow.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;

/**
 * A connection that went silent while the pool's others answer: the link stalls under an open
 * connection (it stays silent for good, as one whose firewall or NAT entry was dropped) and comes
 * back at once, so the pool's probe, on a new connection, finds it answering. A statement sent on
 * the silent connection is given up on after three link timeouts and the pool is made anew; the
 * next statement is answered.
 */
class SilentLinkPoolTest {

    private static final Duration LINK_TIMEOUT = Duration.ofSeconds(1);
    /**
     * The probe does not ask here: a connection it opened before the stall would go silent with
     * the test's, and the next statement might be handed it; this is the case the probe cannot see.
     */
    private static final Duration NO_PROBE = Duration.ofHours(1);

    private final Vertx vertx = Vertx.vertx();
    private final TestDatabase database = PostgresServer.get().createDatabase("silent", false);
    private final UnreliableLink link = UnreliableLink.to(database.host(), database.port());
    private final SilentLinkPool pool = new SilentLinkPool(() -> PgBuilder.pool().with(new PoolOptions().setMaxSize(4))
            .connectingTo(database.connectOptions().setHost("127.0.0.1").setPort(link.port())).using(vertx).build(),
            vertx, LINK_TIMEOUT, NO_PROBE);

    @AfterEach
    void close() {
        pool.close();
        link.close();
        vertx.close();
        database.close();
    }

    @Test
    void aStatementOnAConnectionThatWentSilentIsGivenUpOnAndThePoolMadeAnew() {
        SqlConnection connection = Pg.await(pool.getConnection());
        assertThat(Pg.await(connection.query("SELECT 1").execute()).size()).as("a connection made while the link flows")
                .isEqualTo(1);

        link.stall();
        link.heal();
        CompletableFuture<Integer> onTheSilentConnection = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                onTheSilentConnection.complete(Pg.await(connection.query("SELECT 1").execute()).size());
            } catch (RuntimeException e) {
                onTheSilentConnection.completeExceptionally(e);
            }
        });
        assertThat(one()).as("the link answers on a new connection, as the probe would find").isEqualTo(1);

        await().atMost(LINK_TIMEOUT.multipliedBy(6)).until(onTheSilentConnection::isDone);
        assertThat(onTheSilentConnection).as("given up on: it would have waited for ever")
                .isCompletedExceptionally();
        assertThat(onTheSilentConnection.exceptionNow()).isInstanceOf(SilentLinkException.class);
        assertThat(one()).as("the pool made anew answers").isEqualTo(1);
    }

    private int one() {
        return Pg.await(pool.query("SELECT 1").execute()).iterator().next().getInteger(0);
    }
}
