package dev.loadflow.service.security;

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
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;

import java.util.Optional;
import java.util.Set;

/**
 * {@code Authorization: Bearer <token>} for every caller. A configured token
 * ({@link StaticTokens}: a source's ingest token, or the break-glass token) becomes its
 * caller at once; anything else is a person's JWT, verified by smallrye-jwt (RS256,
 * {@code mp.jwt.verify.publickey.location}, {@code mp.jwt.verify.issuer}; {@code groups} are
 * the roles, the subject is the principal).
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class BearerAuthentication implements HttpAuthenticationMechanism {

    private static final String BEARER = "Bearer ";

    private final JWTAuthMechanism jwt;
    private final StaticTokens tokens;

    BearerAuthentication(JWTAuthMechanism jwt, StaticTokens tokens) {
        this.jwt = jwt;
        this.tokens = tokens;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identities) {
        String header = context.request().headers().get(HttpHeaders.AUTHORIZATION);
        if (header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            String token = header.substring(BEARER.length()).trim();
            Optional<StaticTokens.Caller> caller = tokens.match(token);
            if (caller.isPresent()) {
                return Uni.createFrom().item(QuarkusSecurityIdentity.builder()
                        .setPrincipal(new QuarkusPrincipal(caller.get().name()))
                        .addRoles(caller.get().roles())
                        .addCredential(new TokenCredential(token, "bearer"))
                        .build());
            }
        }
        return jwt.authenticate(context, identities);
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
