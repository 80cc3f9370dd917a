package dev.loadflow.store.citus;

import dev.loadflow.store.processed.PgProcessedEventsContractTest;

/** The fan-out records' contract (a table of the coordinator) on a Citus coordinator: {@link PgProcessedEventsContractTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusProcessedEventsContractTest extends PgProcessedEventsContractTest {
}
