package dev.loadflow.service.store;

import dev.loadflow.service.problem.Problem;
import io.vertx.core.VertxException;
import io.vertx.sqlclient.ClosedConnectionException;
import jakarta.ws.rs.core.Response;

import java.net.ConnectException;
import java.net.SocketException;
import java.util.concurrent.TimeoutException;

/**
 * A request the database could not be asked (refused or reset connections, a pool that could not
 * get one in time), as opposed to one it answered with an error: the caller should come back
 * shortly, not give up. Such a request is answered {@code 503} with {@code Retry-After}.
 */
public final class DatabaseUnreachable {

    /** What a caller is told to wait before it tries again, in seconds. */
    static final int RETRY_AFTER_SECONDS = 5;

    private DatabaseUnreachable() {
    }

    /** Whether {@code error} (or a cause of it) says the database was not reached, rather than that it refused. */
    public static boolean is(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof SocketException || t instanceof TimeoutException
                    || t instanceof ClosedConnectionException || t instanceof io.netty.channel.ConnectTimeoutException
                    || (t instanceof VertxException && t.getMessage() != null && t.getMessage().startsWith("Timeout"))
                    || t instanceof dev.loadflow.store.pg.SilentLinkException || isClosedPool(t)) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** A statement that waited on a pool closed under it: its link went silent ({@link SilentLinkPool}). */
    private static boolean isClosedPool(Throwable t) {
        return (t instanceof IllegalStateException || t instanceof VertxException) && "Pool closed".equals(t.getMessage());
    }

    /** The answer to a request the database could not be asked: {@code 503} problem+json with {@code Retry-After}. */
    /** {@link #answer} as the exception an endpoint throws. */
    public static jakarta.ws.rs.WebApplicationException refusal(String what) {
        return new jakarta.ws.rs.WebApplicationException(what + " could not reach the database", answer(what));
    }

    public static Response answer(String what) {
        return Response.fromResponse(Problem.of(Response.Status.SERVICE_UNAVAILABLE, "Database unreachable",
                        what + " could not reach the database; nothing was written: send it again in " + RETRY_AFTER_SECONDS + " s",
                        null).response())
                .header("Retry-After", Integer.toString(RETRY_AFTER_SECONDS)).build();
    }
}
