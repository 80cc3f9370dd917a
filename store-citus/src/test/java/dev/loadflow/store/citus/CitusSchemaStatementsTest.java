package dev.loadflow.store.citus;

import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.outbox.OutboxStatements;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The functions a Citus node runs hold the stores' own statements, each placed whole (no cluster needed). */
class CitusSchemaStatementsTest {

    @Test
    void everyStatementTheFunctionsRunIsAStoresOwnText() {
        String functions = CitusSchema.functions();

        assertThat(functions).doesNotContain("{{");
        CitusSchema.STATEMENTS.forEach((name, template) ->
                assertThat(functions).as(name).contains("$stmt$" + template + "$stmt$"));
        assertThat(functions).as("the append writes the outbox's columns as the PostgreSQL append does")
                .contains(PgEventStore.APPEND_TEMPLATE).contains("INSERT INTO %2$s (outbox_id, load_id, action_type");
        assertThat(OutboxStatements.CLAIM_TEMPLATE).as("one text, the table left open").contains("FROM %1$s");
    }
}
