package dev.loadflow.console.web;

import dev.loadflow.console.ConsoleConfig;
import dev.loadflow.service.security.StaticTokens;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;

import java.net.URI;
import java.time.Clock;

/**
 * Sign-in: the person pastes the credential they use with {@code curl} (their loadflow JWT, or
 * the break-glass token); once it verifies, it is kept in an HttpOnly, SameSite=Strict,
 * {@code __Host-} session cookie, so another site can neither read it, set it, nor post a form
 * with it. A JWT's session ends when the JWT does; a break-glass session after
 * {@code loadflow.console.break-glass-sign-in}, which a signed cookie beside it records
 * ({@link BrowserGuard}).
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
@PermitAll
public class SignIn {

    private final JWTParser jwt;
    private final StaticTokens tokens;
    private final ConsoleConfig config;
    private final Clock clock;
    private final SessionKey key;

    SignIn(JWTParser jwt, StaticTokens tokens, ConsoleConfig config, Clock clock, SessionKey key) {
        this.key = key;
        this.jwt = jwt;
        this.tokens = tokens;
        this.config = config;
        this.clock = clock;
    }

    @GET
    @Path("/sign-in")
    public Object page(@QueryParam("next") String next) {
        return Pages.signIn(safe(next), null);
    }

    @POST
    @Path("/sign-in")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response signIn(@FormParam("token") String token, @FormParam("next") String next) {
        String given = token == null ? "" : token.trim();
        if (!given.isEmpty() && tokens.match(given).isPresent()) {
            // the token never expires: its console session does
            java.time.Instant end = clock.instant().plus(config.breakGlassSignIn());
            int seconds = (int) Math.min(Integer.MAX_VALUE, config.breakGlassSignIn().toSeconds());
            return Response.seeOther(URI.create(safe(next))).cookie(cookie(config.signInCookie(), given, seconds),
                    cookie(BrowserGuard.untilCookie(config.signInCookie()), key.until(given, end), seconds)).build();
        }
        long maxAge;
        try {
            maxAge = Math.max(1, jwt.parse(given).getExpirationTime() - clock.instant().getEpochSecond());
        } catch (ParseException | RuntimeException refused) {
            return Response.status(Response.Status.UNAUTHORIZED)
                    .entity(Pages.signIn(safe(next), "That credential was not accepted: it is not a valid loadflow JWT "
                            + "(signed, issued by loadflow, not expired) nor the break-glass token.")).build();
        }
        return Response.seeOther(URI.create(safe(next)))
                .cookie(cookie(config.signInCookie(), given, (int) Math.min(Integer.MAX_VALUE, maxAge))).build();
    }

    @POST
    @Path("/sign-out")
    public Response signOut() {
        return Response.seeOther(URI.create("/sign-in")).cookie(expired(config.signInCookie(), config.cookieSecure()),
                expired(BrowserGuard.untilCookie(config.signInCookie()), config.cookieSecure())).build();
    }

    private NewCookie cookie(String name, String value, int maxAge) {
        return builder(name, config.cookieSecure()).value(value).maxAge(maxAge).build();
    }

    /** The cookie {@code name} cleared. */
    static NewCookie expired(String name, boolean secure) {
        return builder(name, secure).value("").maxAge(0).build();
    }

    /** A session cookie: this host only (no Domain), every path, HttpOnly, SameSite=Strict, Secure unless a local run says not. */
    private static NewCookie.Builder builder(String name, boolean secure) {
        return new NewCookie.Builder(name).path("/").httpOnly(true).secure(secure).sameSite(NewCookie.SameSite.STRICT);
    }

    /** Where to go after signing in: a path of this console only (never another site). */
    static String safe(String next) {
        return next != null && next.startsWith("/") && !next.startsWith("//") && !next.contains("\\") ? next : "/";
    }
}
