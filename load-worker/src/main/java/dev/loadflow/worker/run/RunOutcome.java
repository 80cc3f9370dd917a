package dev.loadflow.worker.run;

/**
 * What one run did: its result, the log version after it (or the version it last saw), how
 * many concurrency conflicts it went through, and the decision's reason.
 */
public record RunOutcome(RunResult result, long version, int conflicts, String reason) {
}
