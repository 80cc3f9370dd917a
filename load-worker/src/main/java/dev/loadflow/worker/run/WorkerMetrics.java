package dev.loadflow.worker.run;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.EnumMap;
import java.util.Map;

/**
 * The worker's run metrics, registered at start-up so every series exists from the first
 * scrape: {@code loadflow.worker.runs{result}}, {@code loadflow.worker.conflicts},
 * {@code loadflow.worker.run.duration{result}}, {@code loadflow.worker.parked}, {@code loadflow.worker.held},
 * {@code loadflow.worker.runs.abandoned}, {@code loadflow.worker.batch.size}.
 */
public final class WorkerMetrics {

    private final Map<RunResult, Counter> runs = new EnumMap<>(RunResult.class);
    private final Map<RunResult, Timer> durations = new EnumMap<>(RunResult.class);
    private final Counter conflicts;
    private final Counter parked;
    private final Counter held;
    private final Counter duplicateActionKeys;
    private final Counter wastedModelCalls;
    private final Counter abandoned;
    private final DistributionSummary batches;

    public WorkerMetrics(MeterRegistry registry) {
        for (RunResult result : RunResult.values()) {
            runs.put(result, Counter.builder("loadflow.worker.runs")
                    .description("Runs of the load worker, by how they ended")
                    .tag("result", result.tag()).register(registry));
            durations.put(result, Timer.builder("loadflow.worker.run.duration")
                    .description("Time from a run's start to its end (read, decide, append)")
                    .tag("result", result.tag()).publishPercentileHistogram().register(registry));
        }
        conflicts = Counter.builder("loadflow.worker.conflicts")
                .description("Appends that found the load's log at another version (each one re-read and re-decided)")
                .register(registry);
        parked = Counter.builder("loadflow.worker.parked")
                .description("Poison messages parked out of the load queue")
                .register(registry);
        held = Counter.builder("loadflow.worker.held")
                .description("Loads held at a poison head message (their later messages wait for an operator)")
                .register(registry);
        duplicateActionKeys = Counter.builder("loadflow.worker.duplicate.action.keys")
                .description("Decisions that repeated an action key (a decision bug; each decided again as one Hero task)")
                .register(registry);
        wastedModelCalls = Counter.builder("loadflow.policy.llm.wasted.decisions")
                .description("Decisions a model was asked for that were not logged: their run lost a race for the load "
                        + "(a conflict), so the load was decided again")
                .register(registry);
        abandoned = Counter.builder("loadflow.worker.runs.abandoned")
                .description("Loads whose run passed loadflow.worker.run-deadline and was given back undecided "
                        + "(with the LLM policy: a model slower than the deadline allows)")
                .register(registry);
        batches = DistributionSummary.builder("loadflow.worker.batch.size")
                .description("Messages run together from one receive (one log read and one append for them all)")
                .register(registry);
    }

    /** {@code loads} runs abandoned at the run deadline. */
    public void abandoned(int loads) {
        abandoned.increment(loads);
    }

    public void batch(int size) {
        batches.record(size);
    }

    void wastedModelCall() {
        wastedModelCalls.increment();
    }

    void conflict() {
        conflicts.increment();
    }

    public void parked() {
        parked.increment();
    }

    void duplicateActionKey() {
        duplicateActionKeys.increment();
    }

    public void held() {
        held.increment();
    }

    public void run(RunResult result, long nanos) {
        runs.get(result).increment();
        durations.get(result).record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
}
