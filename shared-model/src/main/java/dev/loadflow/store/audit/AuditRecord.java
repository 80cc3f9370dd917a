package dev.loadflow.store.audit;

import java.util.Objects;

/**
 * An admin change to record with the change itself: who ({@code principal}), through which
 * service, what ({@code action}, e.g. {@code outbox.replay}) on what ({@code target}, e.g. an
 * outbox id or a filter), with which parameters ({@code paramsJson}, a JSON object).
 */
public record AuditRecord(String principal, String service, String action, String target, String paramsJson) {

    public AuditRecord {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(paramsJson, "paramsJson");
    }
}
