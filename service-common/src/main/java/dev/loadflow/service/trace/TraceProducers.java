package dev.loadflow.service.trace;

import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** {@link Traces} on the OpenTelemetry SDK that quarkus-opentelemetry configures ({@code quarkus.otel.*}). */
@ApplicationScoped
public class TraceProducers {

    @Produces
    @Singleton
    Traces traces(OpenTelemetry openTelemetry) {
        return new Traces(openTelemetry);
    }
}
