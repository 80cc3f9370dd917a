package dev.loadflow.store.pg;

/**
 * The schema this build is made for: the version of its newest migration
 * ({@code db/migration/V<n>__*.sql}; {@code MigrationsTest} holds the two together). A service
 * compares it with what the database has applied ({@code flyway_schema_history}) to know whether it
 * may run on the schema, without reading its migrations through Flyway.
 */
public final class Migrations {

    /** The newest migration's version (its whole number). */
    public static final int NEWEST = 40;

    private Migrations() {
    }
}
