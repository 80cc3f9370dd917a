package dev.loadflow.store.stage;

import java.time.Instant;
import java.util.Optional;

/**
 * The {@code load_stage} read model: each load's stage as its {@code update_stage} actions set
 * it, for systems that want a load's stage without reading its log. Setting is idempotent, so
 * a row applied twice is harmless.
 */
public interface LoadStages {

    /** Sets the stage of {@code loadId}, by the outbox row {@code outboxId}, at {@code now}. */
    void set(String loadId, String stage, String outboxId, Instant now);

    /** The stage last set for {@code loadId}; empty before its first {@code update_stage}. */
    Optional<String> stage(String loadId);
}
