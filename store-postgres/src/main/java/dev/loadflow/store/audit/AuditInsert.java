package dev.loadflow.store.audit;

import dev.loadflow.store.pg.Pg;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;

/**
 * The audit row's part of a store's change: an {@code INSERT INTO admin_audit} that joins the
 * statement (or the transaction) of the change it records. The columns of {@code admin_audit}
 * are known here only.
 */
public final class AuditInsert {

    /** How many parameters {@link #bind} adds: at, principal, service, action, target, params. */
    public static final int PARAMETERS = 6;

    /** A plain insert, for a change made in the same transaction by earlier statements; returns {@code id}. */
    public static final String INSERT = """
            INSERT INTO admin_audit (at, principal, service, action, target, params, result)
            VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb) RETURNING id""";

    private AuditInsert() {
    }

    /**
     * An insert for a CTE of a change's statement: one row whose {@code result} is
     * {@code resultExpression} over the CTE {@code changedCte} (e.g.
     * {@code jsonb_build_object('replayed', count(*))}), parameters from {@code $first} on;
     * with {@code onlyIfChanged}, no row when the CTE returned none. Returns {@code id}.
     */
    public static String fromCte(String changedCte, String resultExpression, int first, boolean onlyIfChanged) {
        return """
                INSERT INTO admin_audit (at, principal, service, action, target, params, result)
                SELECT $%2$d, $%3$d, $%4$d, $%5$d, $%6$d, $%7$d::text::jsonb, %8$s FROM %1$s%9$s
                RETURNING id""".formatted(changedCte, first, first + 1, first + 2, first + 3, first + 4, first + 5,
                resultExpression, onlyIfChanged ? " HAVING count(*) > 0" : "");
    }

    /** Adds the {@link #PARAMETERS} values of {@code audit} made {@code at} to {@code params}. */
    public static Tuple bind(Tuple params, AuditRecord audit, Instant at) {
        return params.addOffsetDateTime(Pg.at(at)).addString(audit.principal()).addString(audit.service())
                .addString(audit.action()).addString(audit.target()).addString(audit.paramsJson());
    }
}
