package dev.loadflow.service.health;

import dev.loadflow.store.citus.CitusSchema;
import io.quarkus.flyway.FlywayConfigurationCustomizer;
import jakarta.inject.Singleton;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.configuration.FluentConfiguration;

import java.util.Arrays;
import java.util.stream.Stream;

/**
 * Adds {@link CitusSchema} to the services' Flyway: after every migrate it distributes the schema
 * where the {@code citus} extension is installed, and does nothing on one PostgreSQL.
 */
@Singleton
public class DistributeOnCitus implements FlywayConfigurationCustomizer {

    @Override
    public void customize(FluentConfiguration configuration) {
        configuration.callbacks(Stream.concat(Arrays.stream(configuration.getCallbacks()), Stream.of(new CitusSchema()))
                .toArray(Callback[]::new));
    }
}
