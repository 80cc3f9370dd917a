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
 * the break-glass token); once it verifies, it is kept in an HttpOnly, SameSite=Strict session
 * cookie, so another site can neither read it nor post a form with it.
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
@PermitAll
public class SignIn {

    public static final String COOKIE = "loadflow_session";

    private final JWTParser jwt;
    private final StaticTokens tokens;
    private final ConsoleConfig config;
    private final Clock clock;

    SignIn(JWTParser jwt, StaticTokens tokens, ConsoleConfig config, Clock clock) {
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
        long maxAge;
        if (!given.isEmpty() && tokens.match(given).isPresent()) {
            maxAge = NewCookie.DEFAULT_MAX_AGE; // until the browser closes
        } else {
            try {
                maxAge = Math.max(1, jwt.parse(given).getExpirationTime() - clock.instant().getEpochSecond());
            } catch (ParseException | RuntimeException refused) {
                return Response.status(Response.Status.UNAUTHORIZED)
                        .entity(Pages.signIn(safe(next), "That credential was not accepted: it is not a valid loadflow JWT "
                                + "(signed, issued by loadflow, not expired) nor the break-glass token.")).build();
            }
        }
        return Response.seeOther(URI.create(safe(next))).cookie(cookie(given, (int) Math.min(Integer.MAX_VALUE, maxAge))).build();
    }

    @POST
    @Path("/sign-out")
    public Response signOut() {
        return Response.seeOther(URI.create("/sign-in")).cookie(cookie("", 0)).build();
    }

    private NewCookie cookie(String value, int maxAge) {
        return new NewCookie.Builder(COOKIE).value(value).path("/").httpOnly(true).secure(config.cookieSecure())
                .sameSite(NewCookie.SameSite.STRICT).maxAge(maxAge).build();
    }

    /** Where to go after signing in: a path of this console only (never another site). */
    static String safe(String next) {
        return next != null && next.startsWith("/") && !next.startsWith("//") && !next.contains("\\") ? next : "/";
    }
}
