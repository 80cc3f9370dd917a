package dev.loadflow.store.stage;

import dev.loadflow.testing.PgBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

public class PgLoadStagesContractTest extends LoadStagesContract {

    @RegisterExtension
    protected static final PgBackend PG = new PgBackend("stages");

    @Override
    protected LoadStages loadStages() {
        return new PgLoadStages(PG.pool());
    }

    @Override
    protected void reset() {
        PG.database().truncateAll();
    }
}
