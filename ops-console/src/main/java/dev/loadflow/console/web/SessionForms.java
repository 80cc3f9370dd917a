package dev.loadflow.console.web;

import dev.loadflow.console.ConsoleConfig;
import io.vertx.core.http.Cookie;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;

/**
 * The form token of the browser's session, for the templates ({@code {inject:sessionCsrf.token}}
 * in {@code csrf.html}): empty when the request carries no session cookie (the sign-in page, or a
 * caller with an {@code Authorization} header, which no other site can make a browser send).
 */
@Named("sessionCsrf")
@RequestScoped
public class SessionForms {

    /** The form field that carries it. */
    public static final String FIELD = "sign-in-csrf";

    private final RoutingContext request;
    private final ConsoleConfig config;
    private final SessionKey key;

    SessionForms(RoutingContext request, ConsoleConfig config, SessionKey key) {
        this.request = request;
        this.config = config;
        this.key = key;
    }

    public String getParameterName() {
        return FIELD;
    }

    public String getToken() {
        Cookie session = request.request().getCookie(config.signInCookie());
        return session == null || session.getValue().isBlank() ? "" : key.formToken(session.getValue());
    }
}
