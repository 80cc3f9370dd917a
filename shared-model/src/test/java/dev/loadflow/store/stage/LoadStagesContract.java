package dev.loadflow.store.stage;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@link LoadStages} contract: the stage last set wins, and setting it again changes nothing. */
public abstract class LoadStagesContract {

    protected static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");

    private LoadStages stages;

    protected abstract LoadStages loadStages();

    protected abstract void reset();

    @BeforeEach
    final void setUp() {
        reset();
        stages = loadStages();
    }

    @Test
    final void aLoadHasNoStageUntilOneIsSet() {
        assertThat(stages.stage("481207")).isEmpty();
    }

    @Test
    final void theStageLastSetIsTheLoadsStage() {
        stages.set("481207", "dispatched", "481207/evt:a1/1/update_stage", T0);
        stages.set("481207", "at_pickup", "481207/evt:a2/1/update_stage", T0.plusSeconds(60));

        assertThat(stages.stage("481207")).contains("at_pickup");
    }

    @Test
    final void settingTheSameRowAgainChangesNothingAndLeavesOtherLoadsAlone() {
        stages.set("481207", "dispatched", "481207/evt:a1/1/update_stage", T0);
        stages.set("481207", "dispatched", "481207/evt:a1/1/update_stage", T0.plusSeconds(5));
        stages.set("590001", "in_transit", "590001/evt:b1/1/update_stage", T0);

        assertThat(stages.stage("481207")).contains("dispatched");
        assertThat(stages.stage("590001")).contains("in_transit");
    }
}
