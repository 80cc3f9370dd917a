package dev.loadflow.console;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.util.Optional;

/** {@code loadflow.console.*}: where the admin APIs are, how the session cookie is sent, where traces are shown. */
@ConfigMapping(prefix = "loadflow.console")
public interface ConsoleConfig {

    /** The load-worker's API (held loads: retry, skip). */
    String workerUrl();

    /** The outbox-dispatcher's API (dead rows: replay). */
    String dispatcherUrl();

    /** Whether the session cookie is sent over HTTPS only. */
    @WithDefault("true")
    boolean cookieSecure();

    /**
     * A trace viewer's address with {@code {traceId}} in it (Jaeger, Tempo through Grafana, ...):
     * trace ids on the load page link there. Unset: they are shown without a link.
     */
    Optional<String> traceUrl();

    /** Rows per page of the lists. */
    @WithDefault("50")
    int pageSize();
}
