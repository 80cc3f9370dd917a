package dev.loadflow.store.citus;

import dev.loadflow.store.provider.PgProviderMessagesContractTest;

/** The provider messages' contract (a table of the coordinator) on a Citus coordinator: {@link PgProviderMessagesContractTest}'s suite, run on the distributed schema. */
@OnCitus
class CitusProviderMessagesContractTest extends PgProviderMessagesContractTest {
}
