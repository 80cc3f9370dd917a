package dev.loadflow.store.provider;

import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

public class PgProviderMessagesContractTest extends ProviderMessagesContract {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("provider");

    @Override
    protected ProviderMessages providerMessages() {
        return new PgProviderMessages(PG.pool());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
