package dev.loadflow.store.processed;

import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

public class PgProcessedEventsContractTest extends ProcessedEventsContract {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("processed");

    @Override
    protected ProcessedEvents processedEvents() {
        return new PgProcessedEvents(PG.pool());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
