package dev.loadflow.store.citus;

import dev.loadflow.testing.TestDatabase;

import java.time.Duration;

import static dev.loadflow.testing.Waits.await;

/**
 * Moves a shard between the test cluster's workers as an operator would. A move leaves the shard's
 * old copy behind, dropped later by Citus's maintenance daemon (or by the next move, which tries
 * once and refuses to move a shard whose old copy is still there); a move right after another of
 * the same shard first waits until the old copy is gone.
 */
final class ShardMoves {

    private ShardMoves() {
    }

    /** Moves {@code shard} and those co-located with it, writes blocked meanwhile (no logical replication needed). */
    static void move(TestDatabase database, long shard, int from, int to) {
        await("the old copies of shard " + shard + " dropped").atMost(Duration.ofSeconds(60)).until(() -> {
            database.execute("CALL citus_cleanup_orphaned_resources()");
            return database.count("SELECT count(*) FROM pg_dist_cleanup WHERE object_name LIKE '%\\_" + shard + "'") == 0;
        });
        database.execute("SELECT citus_move_shard_placement(%d, '127.0.0.1', %d, '127.0.0.1', %d, shard_transfer_mode := 'block_writes')"
                .formatted(shard, from, to));
    }
}
