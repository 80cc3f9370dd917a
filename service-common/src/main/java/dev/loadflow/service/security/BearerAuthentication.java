package dev.loadflow.service.security;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.smallrye.jwt.runtime.auth.JWTAuthMechanism;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.Optional;
import java.util.Set;

/**
 * {@code Authorization: Bearer <token>} for every caller. A configured token
 * ({@link StaticTokens}: a source's ingest token, or the break-glass token) becomes its
 * caller at once; anything else is a person's JWT, verified by smallrye-jwt (RS256,
 * {@code mp.jwt.verify.publickey.location}, {@code mp.jwt.verify.issuer},
 * {@code mp.jwt.verify.audiences}; {@code groups} are the roles, the subject is the principal). Where {@code loadflow.auth.cookie} names a cookie
 * (the console's session), the token may come in it instead of the header.
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class BearerAuthentication implements HttpAuthenticationMechanism {

    private static final String BEARER = "Bearer ";

    private final JWTAuthMechanism jwt;
    private final StaticTokens tokens;
    private final Optional<String> cookie;

    BearerAuthentication(JWTAuthMechanism jwt, StaticTokens tokens,
                         @ConfigProperty(name = "loadflow.auth.cookie") Optional<String> cookie) {
        this.jwt = jwt;
        this.tokens = tokens;
        this.cookie = cookie;
    }

    /** The caller's token: the {@code Authorization: Bearer} header's, else the session cookie's where there is one. */
    public static Optional<String> token(RoutingContext context, Optional<String> cookieName) {
        String header = context.request().headers().get(HttpHeaders.AUTHORIZATION);
        if (header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Optional.of(header.substring(BEARER.length()).trim());
        }
        return cookieName.map(name -> context.request().getCookie(name)).map(Cookie::getValue).filter(v -> !v.isBlank());
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identities) {
        Optional<String> token = token(context, cookie);
        Optional<StaticTokens.Caller> caller = token.flatMap(tokens::match);
        if (caller.isPresent()) {
            return Uni.createFrom().item(QuarkusSecurityIdentity.builder()
                    .setPrincipal(new QuarkusPrincipal(caller.get().name()))
                    .addRoles(caller.get().roles())
                    .addAttribute(StaticTokens.EVENT_TYPES, caller.get().eventTypes())
                    .addAttribute(StaticTokens.CLIENTS, caller.get().clients())
                    .addCredential(new TokenCredential(token.get(), "bearer"))
                    .build());
        }
        return jwt.authenticate(context, identities).onItem().ifNotNull().transform(BearerAuthentication::bySubject);
    }

    /**
     * A person's identity named by the JWT's {@code sub}: the one claim an identity provider keeps
     * stable and unique per person ({@code upn} and {@code preferred_username} may be reassigned
     * or changed by the person). A JWT without a subject names nobody and is refused.
     */
    static SecurityIdentity bySubject(SecurityIdentity identity) {
        if (!(identity.getPrincipal() instanceof JsonWebToken token)) {
            return identity;
        }
        String subject = token.getSubject();
        if (subject == null || subject.isBlank()) {
            throw new AuthenticationFailedException("a JWT without a subject");
        }
        return QuarkusSecurityIdentity.builder(identity).setPrincipal(new QuarkusPrincipal(subject)).build();
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return jwt.getChallenge(context);
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return jwt.getCredentialTypes();
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return jwt.getCredentialTransport(context);
    }
}
