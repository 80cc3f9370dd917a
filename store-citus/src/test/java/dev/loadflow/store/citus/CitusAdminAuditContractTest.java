package dev.loadflow.store.citus;

import dev.loadflow.store.audit.PgAdminAuditContractTest;

/** The admin audit's contract (a table of the coordinator) on a Citus coordinator: {@link PgAdminAuditContractTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusAdminAuditContractTest extends PgAdminAuditContractTest {
}
