package dev.loadflow.store.citus;

import dev.loadflow.store.stage.PgLoadStagesContractTest;

/** The load stages' contract on a Citus coordinator: {@link PgLoadStagesContractTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusLoadStagesContractTest extends PgLoadStagesContractTest {
}
