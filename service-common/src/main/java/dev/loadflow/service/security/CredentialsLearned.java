package dev.loadflow.service.security;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.Config;

/** At start, before any loop runs, {@link Credentials} learns this service's secret settings. */
@ApplicationScoped
public class CredentialsLearned {

    void start(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, Config config) {
        Credentials.learn(config);
    }
}
