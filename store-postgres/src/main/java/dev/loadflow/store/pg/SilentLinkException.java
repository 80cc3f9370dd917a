package dev.loadflow.store.pg;

/**
 * A statement whose link to PostgreSQL went silent while it waited: nothing came back for the
 * pool's link timeout, and the pool made its connections anew. Whether the statement took effect
 * is not known, as with any lost answer; the database was not reachable.
 */
public final class SilentLinkException extends RuntimeException {

    public SilentLinkException() {
        super("the link to PostgreSQL went silent while the statement waited for its answer");
    }
}
