package dev.loadflow.console.web;

import dev.loadflow.service.security.Roles;
import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.RequestScoped;

/**
 * Who is signed in: their name, whether they may change anything, and the credential the
 * console passes on to the admin APIs (so roles and the audit trail apply as for {@code curl}).
 */
@RequestScoped
public class Caller {

    private final SecurityIdentity identity;

    Caller(SecurityIdentity identity) {
        this.identity = identity;
    }

    public String name() {
        return identity.getPrincipal().getName();
    }

    /** An operator may change; anyone else signed in only reads, with phone numbers masked. */
    public boolean operator() {
        return identity.hasRole(Roles.OPERATOR);
    }

    public boolean masked() {
        return !operator();
    }

    /** {@code Bearer <the caller's own token>}: a JWT's raw form, or the break-glass token. */
    String authorization() {
        TokenCredential token = identity.getCredential(TokenCredential.class);
        if (token == null) {
            throw new IllegalStateException("the caller " + name() + " holds no token to pass on");
        }
        return "Bearer " + token.getToken();
    }
}
