package dev.loadflow.dispatcher.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.store.alert.OpsAlert;
import dev.loadflow.store.audit.AuditEntry;
import dev.loadflow.store.outbox.OutboxFailure;
import dev.loadflow.store.outbox.OutboxRow;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.Instant;
import java.util.List;

/** The admin API's answers, serialised by Jackson (instants as ISO-8601 strings). */
final class AdminAnswers {

    private AdminAnswers() {
    }

    /** One outbox row; {@code failures} only when one row is shown. */
    @RegisterForReflection
    record RowView(String outboxId, String loadId, String actionType, String channel, String status, int attempts,
                   Instant availableAt, Instant firstAttemptAt, String lastFailure, String receipt,
                   Instant dispatchedAt, Instant deadAt, String correlationId, String causationId, Instant createdAt,
                   @JsonInclude(JsonInclude.Include.NON_NULL) Instant unsureSince,
                   @JsonInclude(JsonInclude.Include.NON_NULL) Instant acknowledgedAt,
                   JsonNode payload, @JsonInclude(JsonInclude.Include.NON_NULL) List<FailureView> failures) {

        static RowView of(OutboxRow r, List<OutboxFailure> failures) {
            return new RowView(r.outboxId(), r.loadId(), r.actionType(), r.channel().wire(), r.status().wire(),
                    r.attempts(), r.availableAt(), r.firstAttemptAt(), r.lastFailure(), r.receipt(), r.dispatchedAt(),
                    r.deadAt(), r.correlationId(), r.causationId(), r.createdAt(), r.unsureSince(),
                    r.acknowledgedAt(), JsonReader.parse(r.payload()).node(),
                    failures == null ? null : failures.stream().map(FailureView::of).toList());
        }
    }

    @RegisterForReflection
    record FailureView(int attempt, Instant failedAt, String failure, boolean parked) {
        static FailureView of(OutboxFailure f) {
            return new FailureView(f.attempt(), f.failedAt(), f.failure(), f.parked());
        }
    }

    @RegisterForReflection
    record DeadPage(int page, int size, List<RowView> rows) {
    }

    @RegisterForReflection
    record AmbiguousRows(List<RowView> rows) {
    }

    @RegisterForReflection
    record Replayed(String outboxId, int replayed, long auditId) {
    }


    /** One admin change; {@code params} and {@code result} as the JSON they were recorded as. */
    @RegisterForReflection
    record AuditView(long id, Instant at, String principal, String service, String action, String target,
                     JsonNode params, JsonNode result) {
        static AuditView of(AuditEntry e) {
            return new AuditView(e.id(), e.at(), e.principal(), e.service(), e.action(), e.target(),
                    JsonReader.parse(e.params()).node(), JsonReader.parse(e.result()).node());
        }
    }

    @RegisterForReflection
    record AuditPage(int page, int size, List<AuditView> entries) {
    }

    @RegisterForReflection
    record AlertView(long id, String loadId, String outboxId, String actionType, String kind, String message,
                     Instant raisedAt, Instant acknowledgedAt) {
        static AlertView of(OpsAlert a) {
            return new AlertView(a.id(), a.loadId(), a.outboxId(), a.actionType(), a.kind(), a.message(), a.raisedAt(),
                    a.acknowledgedAt());
        }
    }

    @RegisterForReflection
    record AlertPage(int page, int size, List<AlertView> alerts) {
    }
}
