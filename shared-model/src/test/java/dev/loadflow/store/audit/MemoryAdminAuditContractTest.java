package dev.loadflow.store.audit;

import dev.loadflow.testing.MemoryAdminAudit;

/** The in-memory trail the SQS queue's tests record to keeps the same contract as the real one. */
class MemoryAdminAuditContractTest extends AdminAuditContract {

    private MemoryAdminAudit audits;

    @Override
    protected AdminAudit adminAudit() {
        return audits;
    }

    @Override
    protected void reset() {
        audits = new MemoryAdminAudit();
    }
}
