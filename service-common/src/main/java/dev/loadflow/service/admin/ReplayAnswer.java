package dev.loadflow.service.admin;

import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.util.List;

/**
 * What the outbox-dispatcher's bulk replay ({@code POST /admin/outbox/replay}) answers: its dry run
 * or what it did. The dispatcher writes these and the console reads them, so the two cannot drift.
 */
@Schema(oneOf = {ReplayAnswer.Preview.class, ReplayAnswer.Replayed.class})
public sealed interface ReplayAnswer {

    /**
     * A dry run: every dead row the filters match, how many of the first {@code limit} a replay
     * would requeue, how many of them are stale (their ask closed since), and the first ids.
     */
    @RegisterForReflection
    @Schema(name = "ReplayPreview")
    record Preview(long matched, long wouldReplay, long stale, List<String> sample) implements ReplayAnswer {
    }

    /** A replay: rows requeued, stale rows left dead, and the audit row of the change. */
    @RegisterForReflection
    @Schema(name = "ReplayedMatching")
    record Replayed(long replayed, long stale, long auditId) implements ReplayAnswer {
    }
}
