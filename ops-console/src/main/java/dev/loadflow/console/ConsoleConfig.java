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
     * The session cookie's name: {@code __Host-loadflow_session}, which a browser keeps for this
     * host only (no sibling host can set it), over HTTPS only. A plain-HTTP local run names it
     * without the prefix.
     */
    @WithDefault("__Host-loadflow_session")
    String signInCookie();

    /** quarkus-rest-csrf's cookie ({@code quarkus.rest-csrf.cookie-name} follows it): {@code __Host-} as the session's. */
    @WithDefault("__Host-loadflow_csrf")
    String csrfCookie();

    /**
     * The key sessions' form tokens and break-glass sessions are signed with (at least 32
     * characters; every replica the same). Unset: a key made at start, so one replica's forms
     * fail at another and every restart ends the break-glass sessions (a warning at start).
     */
    Optional<String> signInKey();

    /** How long a console session signed in with the break-glass token lasts (the token itself never expires). */
    @WithDefault("PT1H")
    java.time.Duration breakGlassSignIn();

    /**
     * A trace viewer's address with {@code {traceId}} in it (Jaeger, Tempo through Grafana, ...):
     * trace ids on the load page link there. Unset: they are shown without a link.
     */
    Optional<String> traceUrl();

    /** Rows per page of the lists. */
    @WithDefault("50")
    int pageSize();
}
