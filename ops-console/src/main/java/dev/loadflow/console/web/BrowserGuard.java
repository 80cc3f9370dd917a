package dev.loadflow.console.web;

import dev.loadflow.console.ConsoleConfig;
import dev.loadflow.service.security.StaticTokens;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.WithFormRead;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Locale;
import java.util.Set;

/**
 * What a browser's request must show before the console acts on it, beside the CSRF cookie and
 * field quarkus-rest-csrf checks:
 * <ul>
 *   <li>a change comes from the console's own pages: {@code Sec-Fetch-Site} says
 *       {@code same-origin}, or (a browser that does not send it) {@code Origin} is the console's
 *       own host, so a page of a sibling host or of another port on this one cannot post a form
 *       here ({@code 403});</li>
 *   <li>a form posted with a session cookie carries that session's own form token
 *       ({@link SessionKey#formToken}), so a token planted or taken from another session is worth
 *       nothing ({@code 400});</li>
 *   <li>a session signed in with the break-glass token ends after
 *       {@code loadflow.console.break-glass-sign-in}: past it the browser is sent to sign in again.</li>
 * </ul>
 */
public class BrowserGuard {

    private static final Set<HttpMethod> SAFE = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);
    private static final Set<String> OWN_PAGES = Set.of("same-origin", "none");

    private final ConsoleConfig config;
    private final SessionKey key;
    private final StaticTokens tokens;
    private final Clock clock;

    BrowserGuard(ConsoleConfig config, SessionKey key, StaticTokens tokens, Clock clock) {
        this.config = config;
        this.key = key;
        this.tokens = tokens;
        this.clock = clock;
    }

    /** The cookie that says until when a break-glass session lasts. */
    static String untilCookie(String sessionCookie) {
        return sessionCookie + "_until";
    }

    @ServerRequestFilter
    @WithFormRead
    public void check(ResteasyReactiveContainerRequestContext context, RoutingContext routing) {
        boolean change = !SAFE.contains(routing.request().method());
        if (change && !fromOwnPages(routing)) {
            context.abortWith(page(Response.Status.FORBIDDEN, "Not from the console's pages",
                    "This change was posted from another site or port. Open the console and use its own form."));
            return;
        }
        Cookie session = routing.request().getCookie(config.signInCookie());
        if (session == null || session.getValue().isBlank()) {
            return;
        }
        String credential = session.getValue();
        if (tokens.match(credential).isPresent()) {
            Cookie until = routing.request().getCookie(untilCookie(config.signInCookie()));
            if (!key.lastsBeyond(credential, until == null ? null : until.getValue(), clock.instant())) {
                context.abortWith(ended(routing, change));
                return;
            }
        }
        if (change && isForm(context)) {
            Object given = ((ResteasyReactiveRequestContext) context.getServerRequestContext())
                    .getFormParameter(SessionForms.FIELD, true, false);
            if (!key.isFormToken(credential, given instanceof String s ? s : null)) {
                context.abortWith(page(Response.Status.BAD_REQUEST, "Form of another session",
                        "This form was not opened in your session. Reload the page and send it again."));
            }
        }
    }

    /**
     * {@code Sec-Fetch-Site} decides where a browser sends it; else {@code Origin}, unless it is
     * {@code null} (what a browser sends for a page's own form under {@code Referrer-Policy:
     * no-referrer}); a caller that sends neither (a script, an old browser) still needs the tokens.
     */
    private static boolean fromOwnPages(RoutingContext routing) {
        String site = routing.request().getHeader("Sec-Fetch-Site");
        if (site != null) {
            return OWN_PAGES.contains(site.toLowerCase(Locale.ROOT));
        }
        String origin = routing.request().getHeader("Origin");
        if (origin == null || origin.equals("null")) {
            return true;
        }
        String host = routing.request().getHeader("Host");
        try {
            String authority = URI.create(origin).getRawAuthority();
            return host != null && authority != null && authority.equalsIgnoreCase(host);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isForm(ResteasyReactiveContainerRequestContext context) {
        MediaType type = context.getMediaType();
        return type != null && (type.isCompatible(MediaType.APPLICATION_FORM_URLENCODED_TYPE)
                || type.isCompatible(MediaType.MULTIPART_FORM_DATA_TYPE));
    }

    /** A break-glass session past its end: signed out, and a page sent to sign in again. */
    private Response ended(RoutingContext routing, boolean change) {
        NewCookie clearSession = SignIn.expired(config.signInCookie(), config.cookieSecure());
        NewCookie clearUntil = SignIn.expired(untilCookie(config.signInCookie()), config.cookieSecure());
        if (change) {
            return Response.fromResponse(page(Response.Status.UNAUTHORIZED, "Session ended",
                    "A break-glass session lasts " + config.breakGlassSignIn() + ". Sign in again."))
                    .cookie(clearSession, clearUntil).build();
        }
        String next = routing.request().uri();
        return Response.seeOther(URI.create("/sign-in?next=" + URLEncoder.encode(SignIn.safe(next), StandardCharsets.UTF_8)))
                .cookie(clearSession, clearUntil).build();
    }

    private static Response page(Response.Status status, String title, String detail) {
        return Response.status(status).type(MediaType.TEXT_HTML_TYPE)
                .entity(Pages.problem(status.getStatusCode(), title, detail).render()).build();
    }
}
