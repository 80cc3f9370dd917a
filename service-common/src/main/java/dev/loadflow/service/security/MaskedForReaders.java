package dev.loadflow.service.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * Every answer of every API, for a caller who reads ({@link Roles#VIEWER}) without
 * {@link Roles#OPERATOR}, with each phone number in it masked ({@link PhoneMask}): in fields and
 * inside free text (SMS bodies, alert messages, failure reasons, parked messages), whatever the
 * endpoint. One place, so a new endpoint cannot forget it. Applies to successful JSON answers; a
 * refusal's problem body names only what the caller sent, and a source reads nothing but the
 * receipts of its own events (no phone number in them), so ingest pays nothing for it.
 */
public class MaskedForReaders {

    private final CurrentIdentityAssociation identities;
    private final ObjectMapper json;

    MaskedForReaders(CurrentIdentityAssociation identities, ObjectMapper json) {
        this.identities = identities;
        this.json = json;
    }

    @ServerResponseFilter
    public void mask(ContainerResponseContext response) {
        Object entity = response.getEntity();
        MediaType type = response.getMediaType();
        if (entity == null || entity instanceof String || response.getStatus() >= 300
                || type != null && !MediaType.APPLICATION_JSON_TYPE.isCompatible(type)) {
            return;
        }
        // every endpoint names its roles, so the caller was authenticated before its method ran
        SecurityIdentity caller = identities.getIdentity();
        if (caller.hasRole(Roles.VIEWER) && !caller.hasRole(Roles.OPERATOR)) {
            JsonNode tree = entity instanceof JsonNode node ? node : json.valueToTree(entity);
            response.setEntity(PhoneMask.mask(tree));
        }
    }
}
