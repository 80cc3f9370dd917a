package dev.loadflow.service.admin;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** What the outbox-dispatcher answers an operator's change of one row or alert; the console reads the same records. */
public final class RowAnswers {

    private RowAnswers() {
    }

    @RegisterForReflection
    public record Resolved(String outboxId, String as, long auditId) {
    }

    @RegisterForReflection
    public record Acknowledged(String target, boolean acknowledged, long auditId) {
    }
}
