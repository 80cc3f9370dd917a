package dev.loadflow.store.citus;

import dev.loadflow.store.queue.PgUnrunReceivesTest;

/** The unrun receives (a table of the coordinator) on a Citus coordinator: {@link PgUnrunReceivesTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusUnrunReceivesTest extends PgUnrunReceivesTest {
}
