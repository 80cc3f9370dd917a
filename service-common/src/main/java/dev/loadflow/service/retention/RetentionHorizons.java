package dev.loadflow.service.retention;

import java.util.ArrayList;
import java.util.List;

/**
 * The retention settings that dedupe depends on, checked at start: a record that stops a second
 * send must outlive whatever could cause one. A setting shorter than what depends on it stops the
 * service with the keys to change, instead of sending twice weeks later.
 */
public final class RetentionHorizons {

    private RetentionHorizons() {
    }

    /** What is wrong, one line per setting; empty when the horizons hold. */
    public static List<String> problems(RetentionConfig retention) {
        List<String> problems = new ArrayList<>();
        if (retention.dispatched().compareTo(retention.loadLifetime()) < 0) {
            problems.add("loadflow.retention.dispatched (" + retention.dispatched() + ") is shorter than loadflow.retention.load-lifetime ("
                    + retention.loadLifetime() + "): a decision repeated after its rows were pruned would be sent again");
        }
        if (retention.processed().compareTo(retention.dead()) <= 0) {
            problems.add("loadflow.retention.processed (" + retention.processed() + ") must be longer than loadflow.retention.dead ("
                    + retention.dead() + "): a dead stage_changed row replayed late would post again to webhooks that had it");
        }
        if (retention.processed().compareTo(retention.loadLifetime()) < 0) {
            problems.add("loadflow.retention.processed (" + retention.processed() + ") is shorter than loadflow.retention.load-lifetime ("
                    + retention.loadLifetime() + ")");
        }
        return problems;
    }

    /** Throws, naming every setting to change, unless the horizons hold. */
    public static void check(RetentionConfig retention) {
        List<String> problems = problems(retention);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("retention shorter than what dedupe depends on:\n  " + String.join("\n  ", problems));
        }
    }
}
