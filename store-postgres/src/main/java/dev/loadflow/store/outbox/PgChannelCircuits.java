package dev.loadflow.store.outbox;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code channel_circuit}: the channels a dispatcher's circuit holds back, for what reads the
 * database from outside (KEDA's dispatcher trigger leaves their due rows out). Advisory: no
 * dispatcher decides anything by it.
 */
public final class PgChannelCircuits {

    static final String OPENED = """
            INSERT INTO channel_circuit (channel, open_until, opened_at) VALUES ($1, $2, $3)
            ON CONFLICT (channel) DO UPDATE SET open_until = greatest(channel_circuit.open_until, excluded.open_until)""";

    static final String CLOSED = "DELETE FROM channel_circuit WHERE channel = $1";

    static final String OPEN = "SELECT channel, open_until FROM channel_circuit WHERE open_until > $1 ORDER BY channel";

    private final Pool pool;

    public PgChannelCircuits(Pool pool) {
        this.pool = pool;
    }

    /** A circuit of {@code channel} opened (or opened again) at {@code at}; it holds rows back until {@code until}. */
    public void opened(String channel, Instant at, Instant until) {
        Pg.await(pool.preparedQuery(OPENED).execute(Tuple.of(channel, Pg.at(until), Pg.at(at))));
    }

    /** A circuit of {@code channel} closed: its rows are work again. */
    public void closed(String channel) {
        Pg.await(pool.preparedQuery(CLOSED).execute(Tuple.of(channel)));
    }

    /** The channels held back at {@code now}, with until when. */
    public Map<String, Instant> open(Instant now) {
        Map<String, Instant> open = new LinkedHashMap<>();
        for (Row row : Pg.await(pool.preparedQuery(OPEN).execute(Tuple.of(Pg.at(now))))) {
            open.put(row.getString("channel"), Pg.instant(row, "open_until"));
        }
        return open;
    }
}
