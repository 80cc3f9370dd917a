package dev.loadflow.console.web;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * {@code Strict-Transport-Security} on every answer served over TLS: a browser that once reached
 * the console over HTTPS never again sends its session cookie in clear. Over plain HTTP the
 * header would mean nothing (browsers ignore it there), so it is not sent; where TLS ends at an
 * Ingress, the Ingress adds it (and with {@code quarkus.http.proxy.proxy-address-forwarding} the
 * forwarded scheme counts here).
 */
@ApplicationScoped
public class StrictTransport {

    static final String ONE_YEAR = "max-age=31536000";

    void addTo(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(context -> {
            if ("https".equals(context.request().scheme())) {
                context.response().putHeader("Strict-Transport-Security", ONE_YEAR);
            }
            context.next();
        });
    }
}
