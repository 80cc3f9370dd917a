package dev.loadflow.store.citus;

import dev.loadflow.testing.PostgresServer;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A suite that runs on a Citus coordinator only: the one {@code QUARKUS_DATASOURCE_JDBC_URL}
 * names (CI's Citus lane). Without one the suite is skipped, never run against one PostgreSQL,
 * where its parent suite runs already.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(OnCitus.Condition.class)
public @interface OnCitus {

    final class Condition implements ExecutionCondition {

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (System.getenv("QUARKUS_DATASOURCE_JDBC_URL") == null) {
                return ConditionEvaluationResult.disabled("needs a Citus coordinator (QUARKUS_DATASOURCE_JDBC_URL)");
            }
            return PostgresServer.get().citus() ? ConditionEvaluationResult.enabled("on a Citus coordinator")
                    : ConditionEvaluationResult.disabled("QUARKUS_DATASOURCE_JDBC_URL names no Citus coordinator");
        }
    }
}
