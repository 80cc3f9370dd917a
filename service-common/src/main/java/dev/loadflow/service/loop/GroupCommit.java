package dev.loadflow.service.loop;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Group commit for callers on many threads: each {@link #submit} waits for its item to be
 * written, and items that arrive while a write is under way go together in the next one. No
 * thread of its own and no timer: the first caller to find no write under way writes
 * everything pending (up to {@code maxBatch}), then hands the turn to the oldest waiter, so
 * nobody writes for others longer than one batch. Under light load every item goes alone, at
 * once; under heavy load a batch holds what arrived during one write. A batch the store refused
 * for its content ({@code refusedForAnItem}: the store answered with an error, rather than failed
 * to answer) is written again item by item, so one item the store refuses fails only its own
 * caller; any other failure fails the batch's callers at once (a store that does not answer
 * would not answer each of them either).
 *
 * @param <T> what is written
 * @param <R> what each caller learns about its item
 */
public final class GroupCommit<T, R> {

    /**
     * How a batch is written: one result per item, in order. Throwing writes nothing (one transaction), and the
     * batch's items are then written one by one.
     */
    private final Function<List<T>, List<R>> write;
    private final int maxBatch;
    private final Predicate<RuntimeException> refusedForAnItem;
    private final ArrayDeque<Pending<T, R>> pending = new ArrayDeque<>();
    private boolean writing;

    /** A group commit whose every failure fails the whole batch. */
    public GroupCommit(Function<List<T>, List<R>> write, int maxBatch) {
        this(write, maxBatch, e -> false);
    }

    public GroupCommit(Function<List<T>, List<R>> write, int maxBatch, Predicate<RuntimeException> refusedForAnItem) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1, got " + maxBatch);
        }
        this.write = write;
        this.maxBatch = maxBatch;
        this.refusedForAnItem = refusedForAnItem;
    }

    /**
     * Waits until {@code item} is written in some batch and returns its result.
     *
     * @throws RuntimeException what the write of its batch threw
     */
    public R submit(T item) {
        Pending<T, R> mine = new Pending<>(item);
        boolean lead;
        synchronized (this) {
            pending.add(mine);
            lead = !writing;
            writing = true;
        }
        if (lead || mine.turn.join()) {
            writeBatch();
        }
        try {
            return mine.result.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** How many items wait for a write (not counting the batch being written). */
    synchronized int waiting() {
        return pending.size();
    }

    /** Writes one batch from the head of the queue (holding the caller's item), then passes the turn on. */
    private void writeBatch() {
        List<Pending<T, R>> batch = new ArrayList<>();
        synchronized (this) {
            while (!pending.isEmpty() && batch.size() < maxBatch) {
                batch.add(pending.poll());
            }
        }
        try {
            finish(batch);
        } catch (RuntimeException e) {
            if (batch.size() == 1 || !refusedForAnItem.test(e)) {
                batch.forEach(p -> p.fail(e));
            } else {
                // which item the store refused is not known: each is written alone, and only that one fails
                for (Pending<T, R> alone : batch) {
                    try {
                        finish(List.of(alone));
                    } catch (RuntimeException itsOwn) {
                        alone.fail(itsOwn);
                    }
                }
            }
        }
        Pending<T, R> next;
        synchronized (this) {
            next = pending.peek();
            if (next == null) {
                writing = false;
            }
        }
        if (next != null) {
            next.turn.complete(true);
        }
    }

    private void finish(List<Pending<T, R>> batch) {
        List<R> results = write.apply(batch.stream().map(p -> p.item).toList());
        if (results.size() != batch.size()) {
            throw new IllegalStateException("a write of " + batch.size() + " items returned " + results.size() + " results");
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).finish(results.get(i));
        }
    }

    private static final class Pending<T, R> {
        final T item;
        /** Completed true when this caller must write the next batch, false when its item was written. */
        final CompletableFuture<Boolean> turn = new CompletableFuture<>();
        final CompletableFuture<R> result = new CompletableFuture<>();

        Pending(T item) {
            this.item = item;
        }

        void finish(R value) {
            result.complete(value);
            turn.complete(false);
        }

        void fail(RuntimeException error) {
            result.completeExceptionally(error);
            turn.complete(false);
        }
    }
}
