package dev.loadflow.service.admin;

import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;
import java.util.List;

/**
 * What the load-worker's bulk repair of held loads ({@code POST /admin/loads/held/repair})
 * answers: its dry run or what it did. The worker writes these and the console reads them.
 */
@Schema(oneOf = {HeldRepairAnswer.Preview.class, HeldRepairAnswer.Repaired.class})
public sealed interface HeldRepairAnswer {

    /** A held load as the admin API lists it; {@code waiting} null where the queue cannot count per load (SQS). */
    @RegisterForReflection
    @Schema(name = "HeldLoad")
    record Held(String loadId, String messageId, String messageType, String reason, Instant since, String state,
                Integer waiting) {
    }

    /** A load's hold after a retry or a skip, and the audit row of the change. */
    @RegisterForReflection
    record Changed(String loadId, String messageId, String messageType, String state, long auditId) {
    }

    /** A load the bulk repair left as it was, and why (it was released or changed meanwhile). */
    @RegisterForReflection
    record Refused(String loadId, String detail) {
    }

    /** A dry run: how many held loads the filters match, and the loads a repair of at most {@code limit} would change. */
    @RegisterForReflection
    @Schema(name = "HeldRepairPreview")
    record Preview(String action, long matched, List<Held> loads) implements HeldRepairAnswer {
    }

    /** A repair: the loads retried or skipped, and those left as they were. */
    @RegisterForReflection
    @Schema(name = "HeldRepaired")
    record Repaired(String action, List<Changed> done, List<Refused> refused) implements HeldRepairAnswer {
    }
}
