package dev.loadflow.worker.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.SopRulesCodec;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.Audits;
import dev.loadflow.service.security.Roles;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.sop.SopChangedMeanwhileException;
import dev.loadflow.store.sop.SopVersion;
import dev.loadflow.store.sop.SopVersions;
import dev.loadflow.worker.policy.SopConfig;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestResponse;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The clients' SOPs, for operators (viewers read, operators change): each client's current
 * version and its history, and a new version with a reason, audited in the same transaction. A
 * client with no stored version follows its configured rules ({@code loadflow.sop.*}).
 */
@Path("/admin/sops")
@Produces(MediaType.APPLICATION_JSON)
@RegisterForReflection(targets = SopRulesCodec.Json.class) // written in answers, read back from sop_version (PgSopVersions)
public class SopsResource {

    private final SopVersions versions;
    private final SopConfig configured;
    private final Audits audits;
    private final Clock clock;

    SopsResource(SopVersions versions, SopConfig configured, Audits audits, Clock clock) {
        this.versions = versions;
        this.configured = configured;
        this.audits = audits;
        this.clock = clock;
    }

    /** A client's SOP: its version (0: the configured rules), and who made it, when and why. */
    @RegisterForReflection
    public record Sop(String clientId, int version, SopRulesCodec.Json rules, String madeBy, Instant madeAt, String reason) {

        static Sop of(SopVersion v) {
            return new Sop(v.clientId(), v.version(), SopRulesCodec.json(v.rules()), v.madeBy(), v.madeAt(), v.reason());
        }

        static Sop configured(String clientId, SopRules rules) {
            return new Sop(clientId, 0, SopRulesCodec.json(rules), null, null, "configuration (loadflow.sop.*)");
        }
    }

    @RegisterForReflection
    public record Sops(List<Sop> clients) {
    }

    /** A client's SOP now, and every version before it, newest first. */
    @RegisterForReflection
    public record SopHistory(String clientId, Sop current, List<Sop> history) {
    }

    /** A new version: the rules, whole, and why. */
    @RegisterForReflection
    public record NewVersion(JsonNode rules, String reason) {
    }

    @RegisterForReflection
    public record Added(String clientId, int version, long auditId) {
    }

    /** Every client with an SOP of its own, stored or configured, with its current version. */
    @GET
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @RunOnVirtualThread
    public RestResponse<Sops> list() {
        Map<String, Sop> byClient = new TreeMap<>();
        for (String clientId : new TreeSet<>(configured.clients().keySet())) {
            byClient.put(clientId, Sop.configured(clientId, configured.rulesFor(clientId)));
        }
        versions.currents().forEach(version -> byClient.put(version.clientId(), Sop.of(version)));
        return RestResponse.ok(new Sops(List.copyOf(byClient.values())));
    }

    @GET
    @Path("/{clientId}")
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @RunOnVirtualThread
    public RestResponse<SopHistory> one(@PathParam("clientId") String clientId) {
        checkClientId(clientId);
        List<Sop> history = versions.history(clientId).stream().map(Sop::of).toList();
        Sop current = history.isEmpty() ? Sop.configured(clientId, configured.rulesFor(clientId)) : history.getFirst();
        return RestResponse.ok(new SopHistory(clientId, current, history));
    }

    /**
     * The client's next version, {@code {"rules": {...}, "reason": "..."}}: the rules whole (every
     * field checked; a wrong one is named in the 400 problem), the reason kept with the version and
     * in the audit trail. The workers decide by it from their next decision on.
     */
    @PUT
    @Path("/{clientId}")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.OPERATOR)
    @RunOnVirtualThread
    public RestResponse<Added> put(@PathParam("clientId") String clientId, NewVersion body) {
        checkClientId(clientId);
        if (body == null || body.rules() == null) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "rules is required: the SOP's fields, whole", "rules")
                    .exception();
        }
        String reason = body.reason() == null ? "" : body.reason().strip();
        if (reason.isEmpty() || reason.length() > OperatorReason.MAX) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "reason is required: why the SOP changes, 1 to "
                    + OperatorReason.MAX + " characters", "reason").exception();
        }
        SopRules rules;
        try {
            rules = SopRulesCodec.decode(body.rules());
        } catch (SopRulesCodec.InvalidRulesException e) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Invalid SOP", e.getMessage(),
                    "rules." + e.errors().getFirst().field()).exception();
        }
        AuditRecord audit = audits.of("sop.put", clientId, Map.of("reason", reason,
                "rules", JsonReader.MAPPER.valueToTree(SopRulesCodec.json(rules))));
        SopVersions.Added added;
        try {
            added = versions.add(clientId, rules, reason, audit, clock.instant());
        } catch (SopChangedMeanwhileException e) {
            throw Problem.of(Response.Status.CONFLICT, e.getMessage()).exception();
        }
        audits.logged(audit, added.auditId(), "version " + added.version().version());
        return RestResponse.ok(new Added(clientId, added.version().version(), added.auditId()));
    }

    private static void checkClientId(String clientId) {
        if (!InboundIds.isValidLoadId(clientId)) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request",
                    "a client id is 1 to 64 characters of A-Z, a-z, 0-9, _ and -", "clientId").exception();
        }
    }
}
