package dev.loadflow.dispatcher.protect;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.AbstractLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;

import java.util.concurrent.TimeUnit;

/**
 * A channel's limit of requests in flight: the lower of two of concurrency-limits' algorithms,
 * each fed every answer. Gradient2 follows latency (it shrinks as the provider's latency rises
 * above its long-run average, never below {@link #floor}, and grows while it holds), and AIMD
 * follows refusals (it grows by one per answer while the limit is in use and shrinks by a tenth on
 * each 429 or 503, down to one). Gradient2 alone ignores a provider's refusals; Vegas, which heeds
 * both, takes a sub-millisecond channel's jitter for queueing and shrinks to a handful.
 */
final class PaceLimit extends AbstractLimit {

    private final Limit latency;
    private final Limit refusals;

    /**
     * @param initial  where both start
     * @param floor    the least the latency side goes to (the refusal side may go lower)
     * @param ceiling  the most either goes to
     * @param timeout  an answer slower than this counts as a refusal
     */
    PaceLimit(int initial, int floor, int ceiling, long timeout, TimeUnit unit) {
        super(initial);
        this.latency = Gradient2Limit.newBuilder().initialLimit(initial).minLimit(floor).maxConcurrency(ceiling).build();
        this.refusals = AIMDLimit.newBuilder().initialLimit(initial).minLimit(1).maxLimit(ceiling).timeout(timeout, unit)
                .build();
    }

    @Override
    protected int _update(long startTime, long rtt, int inflight, boolean didDrop) {
        latency.onSample(startTime, rtt, inflight, didDrop);
        refusals.onSample(startTime, rtt, inflight, didDrop);
        return Math.min(latency.getLimit(), refusals.getLimit());
    }
}
