package dev.loadflow.testing;

import dev.loadflow.store.audit.AdminAudit;
import dev.loadflow.store.audit.AuditEntry;
import dev.loadflow.store.audit.AuditQuery;
import dev.loadflow.store.audit.AuditRecord;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** An audit trail in memory, for a store whose changes leave the database (the SQS queue). */
public final class MemoryAdminAudit implements AdminAudit {

    private final List<AuditEntry> entries = new ArrayList<>();

    @Override
    public synchronized long record(AuditRecord audit, String resultJson, Instant at) {
        long id = entries.size() + 1;
        entries.add(new AuditEntry(id, at, audit.principal(), audit.service(), audit.action(), audit.target(),
                audit.paramsJson(), resultJson));
        return id;
    }

    @Override
    public synchronized List<AuditEntry> list(AuditQuery query) {
        return entries.stream()
                .filter(e -> query.since() == null || !e.at().isBefore(query.since()))
                .filter(e -> query.principal() == null || e.principal().equals(query.principal()))
                .sorted(Comparator.comparing(AuditEntry::at).thenComparing(AuditEntry::id).reversed())
                .skip(query.offset()).limit(query.limit()).toList();
    }
}
