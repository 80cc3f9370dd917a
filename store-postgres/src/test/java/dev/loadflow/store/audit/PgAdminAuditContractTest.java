package dev.loadflow.store.audit;

import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

public class PgAdminAuditContractTest extends AdminAuditContract {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("admin_audit");

    @Override
    protected AdminAudit adminAudit() {
        return new PgAdminAudit(PG.pool());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
