package dev.loadflow.service.retention;

import java.util.function.IntUnaryOperator;

/**
 * Deletes in short statements until a batch comes back short, so pruning never holds locks
 * on a large part of a table for long.
 */
public final class BatchedDelete {

    private BatchedDelete() {
    }

    /** Calls {@code deleteBatch(batchSize)} until it deletes fewer than {@code batchSize}; returns the total. */
    public static int untilDone(IntUnaryOperator deleteBatch, int batchSize) {
        int total = 0;
        int deleted;
        do {
            deleted = deleteBatch.applyAsInt(batchSize);
            total += deleted;
        } while (deleted == batchSize);
        return total;
    }
}
