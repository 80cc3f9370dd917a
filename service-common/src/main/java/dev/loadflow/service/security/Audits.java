package dev.loadflow.service.security;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.loadflow.model.json.InvalidJsonException;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.TextRules;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.store.audit.AuditRecord;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.util.Map;

/**
 * The audit records of admin changes: who (the caller's principal), through which service,
 * what, on what, with which parameters. The store writes the record in the change's
 * transaction; {@link #logged} adds the log line once it has.
 */
@ApplicationScoped
public class Audits {

    private static final Logger LOG = Logger.getLogger("dev.loadflow.audit");

    private final SecurityIdentity caller;
    private final String service;

    Audits(SecurityIdentity caller, @ConfigProperty(name = "quarkus.application.name") String service) {
        this.caller = caller;
        this.service = service;
    }

    /** The record of {@code action} on {@code target} by the current caller; {@code params} without nulls. */
    public AuditRecord of(String action, String target, Map<String, ?> params) {
        try {
            // what an operator wrote reaches the audit trail and the change itself: no control character
            Map<String, Object> said = new java.util.HashMap<>();
            said.put("target", target);
            said.put("params", params);
            TextRules.requirePrintable(JsonReader.MAPPER.valueToTree(said), "$");
        } catch (InvalidJsonException e) {
            throw Problem.of(jakarta.ws.rs.core.Response.Status.BAD_REQUEST, "Invalid admin input", e.getMessage(),
                    e.field().replaceFirst("^params\\.", "")).exception();
        }
        try {
            // the trail is read by viewers and kept for years: a credential an operator pasted is not kept in it
            return new AuditRecord(caller.getPrincipal().getName(), service, action, Credentials.redact(target),
                    Credentials.redact(JsonReader.MAPPER.writeValueAsString(params)));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("audit parameters must be JSON values: " + e.getOriginalMessage(), e);
        }
    }

    /** The log line of a recorded change. */
    public void logged(AuditRecord audit, long auditId, String result) {
        LOG.infof("AUDIT %d: %s %s on %s by %s %s: %s", auditId, audit.service(), audit.action(), audit.target(),
                audit.principal(), audit.paramsJson(), result);
    }
}
