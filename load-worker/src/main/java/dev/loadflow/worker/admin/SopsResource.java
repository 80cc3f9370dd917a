package dev.loadflow.worker.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.model.json.SopRulesCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.policy.SopRules;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.service.admin.SopAnswers;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.Audits;
import dev.loadflow.service.security.Roles;
import dev.loadflow.store.audit.AuditRecord;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.store.sop.SopChangedMeanwhileException;
import dev.loadflow.store.sop.SopVersion;
import dev.loadflow.store.sop.SopVersions;
import dev.loadflow.worker.policy.SopConfig;
import dev.loadflow.worker.policy.SopPreview;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestResponse;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
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
// written in answers, read back from sop_version (PgSopVersions)
@RegisterForReflection(targets = {SopRulesCodec.Json.class, SopRulesCodec.Hours.class, SopRulesCodec.AttemptJson.class})
public class SopsResource {

    /** The YAML media type of an export and an import (RFC 9512). */
    public static final String YAML = "application/yaml";
    private static final YAMLMapper YAML_MAPPER = YAMLMapper.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build();

    private final SopVersions versions;
    private final SopConfig configured;
    private final EventStore events;
    private final Audits audits;
    private final Clock clock;

    SopsResource(SopVersions versions, SopConfig configured, EventStore events, Audits audits, Clock clock) {
        this.versions = versions;
        this.configured = configured;
        this.events = events;
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


    /** What an import did, or would do ({@code dryRun}): each client's change, and the clients it left alone. */
    @RegisterForReflection
    public record Imported(boolean dryRun, List<ClientChange> changes, List<String> untouched) {
    }

    /**
     * One client of an import: {@code added} (its first stored version), {@code changed} (a new
     * version) or {@code unchanged} (the rules it has); {@code from} and {@code to} are versions
     * ({@code to} is null in a dry run).
     */
    @RegisterForReflection
    public record ClientChange(String clientId, String change, int from, Integer to, Long auditId) {
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
    public RestResponse<SopAnswers.Added> put(@PathParam("clientId") String clientId, SopAnswers.NewVersion body) {
        checkClientId(clientId);
        if (body == null) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "rules is required: the SOP's fields, whole", "rules")
                    .exception();
        }
        String reason = body.reason() == null ? "" : body.reason().strip();
        if (reason.isEmpty() || reason.length() > OperatorReason.MAX) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "reason is required: why the SOP changes, 1 to "
                    + OperatorReason.MAX + " characters", "reason").exception();
        }
        SopRules rules = rules(body.rules());
        AuditRecord audit = audits.of("sop.put", clientId, Map.of("reason", reason,
                "rules", JsonReader.MAPPER.valueToTree(SopRulesCodec.json(rules))));
        SopVersions.Added added;
        try {
            added = versions.add(clientId, rules, reason, audit, clock.instant());
        } catch (SopChangedMeanwhileException e) {
            throw Problem.of(Response.Status.CONFLICT, e.getMessage()).exception();
        }
        audits.logged(audit, added.auditId(), "version " + added.version().version());
        return RestResponse.ok(new SopAnswers.Added(clientId, added.version().version(), added.auditId()));
    }

    /**
     * What {@code {"rules": {...}, "loadId": "..."}} would do as the client's SOP on that load, written
     * nowhere: each attempt's text for the load (encoding and segments), and, event by event through
     * the load's history, what was decided and what these rules would decide.
     */
    @POST
    @Path("/{clientId}/preview")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.OPERATOR)
    @RunOnVirtualThread
    public RestResponse<SopAnswers.Preview> preview(@PathParam("clientId") String clientId, SopAnswers.PreviewRequest body) {
        checkClientId(clientId);
        if (body == null || body.loadId() == null || !InboundIds.isValidLoadId(body.loadId())) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "loadId is required: the load to preview the SOP on",
                    "loadId").exception();
        }
        SopRules rules = rules(body.rules());
        LoadLog log = events.read(body.loadId());
        if (log.entries().isEmpty()) {
            throw Problem.of(Response.Status.NOT_FOUND, "load " + body.loadId() + " has no events").exception();
        }
        LoadState state = LoadState.project(log);
        if (state.clientId() != null && !state.clientId().equals(clientId)) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "load " + body.loadId() + " belongs to client "
                    + state.clientId() + ", not " + clientId, "loadId").exception();
        }
        return RestResponse.ok(SopPreview.of(clientId, rules, log));
    }

    /**
     * Every client's current stored SOP as one YAML document ({@code sops: {<clientId>: {version, rules}}}),
     * for a team to keep in git and bring back with {@link #importAll}. Clients on configured rules
     * are not in it.
     */
    @GET
    @Path("/export")
    @Produces(YAML)
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @RunOnVirtualThread
    public String export() throws JsonProcessingException {
        ObjectNode document = YAML_MAPPER.createObjectNode();
        ObjectNode sops = document.putObject("sops");
        for (SopVersion version : versions.currents()) {
            ObjectNode client = sops.putObject(version.clientId());
            client.put("version", version.version());
            client.set("rules", JsonReader.MAPPER.valueToTree(SopRulesCodec.json(version.rules())));
        }
        return "# loadflow SOPs, exported " + clock.instant() + "; import with POST /admin/sops/import\n"
                + YAML_MAPPER.writeValueAsString(document);
    }

    /**
     * Brings back an exported document: each client whose rules differ from its current SOP gets a
     * new version, all in one transaction, each audited; a {@code dryRun} lists what would change and
     * writes nothing. Every wrong field of every client is named and nothing is written. A
     * client's {@code version} in the document is informational; clients not in it are left alone.
     */
    @POST
    @Path("/import")
    @Consumes({YAML, "text/yaml", "application/x-yaml"})
    @RolesAllowed(Roles.OPERATOR)
    @RunOnVirtualThread
    public RestResponse<Imported> importAll(String document, @QueryParam("dryRun") boolean dryRun,
                                            @QueryParam("reason") String reasonParam) {
        String reason = reasonParam == null ? "" : reasonParam.strip();
        if (!dryRun && (reason.isEmpty() || reason.length() > OperatorReason.MAX)) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "reason is required: why the SOPs change, 1 to "
                    + OperatorReason.MAX + " characters", "reason").exception();
        }
        JsonNode sops = sopsOf(document);
        Map<String, SopRules> wanted = new TreeMap<>();
        List<String> errors = new ArrayList<>();
        for (Map.Entry<String, JsonNode> client : sops.properties()) {
            if (!InboundIds.isValidLoadId(client.getKey())) {
                errors.add("sops." + client.getKey() + ": a client id is 1 to 64 characters of A-Z, a-z, 0-9, _ and -");
                continue;
            }
            try {
                wanted.put(client.getKey(), SopRulesCodec.decode(client.getValue().path("rules")));
            } catch (SopRulesCodec.InvalidRulesException e) {
                e.errors().forEach(error -> errors.add("sops." + client.getKey() + ".rules." + error.field() + ": " + error.why()));
            }
        }
        if (!errors.isEmpty()) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Invalid SOPs", String.join("; ", errors), "sops").exception();
        }
        Map<String, SopVersion> stored = new TreeMap<>();
        versions.currents().forEach(version -> stored.put(version.clientId(), version));
        List<ClientChange> changes = new ArrayList<>();
        List<SopVersions.Change> writes = new ArrayList<>();
        for (Map.Entry<String, SopRules> client : wanted.entrySet()) {
            SopVersion current = stored.get(client.getKey());
            SopRules now = current == null ? configured.rulesFor(client.getKey()) : current.rules();
            int from = current == null ? 0 : current.version();
            if (now.equals(client.getValue())) {
                changes.add(new ClientChange(client.getKey(), "unchanged", from, from, null));
                continue;
            }
            changes.add(new ClientChange(client.getKey(), current == null ? "added" : "changed", from, null, null));
            writes.add(new SopVersions.Change(client.getKey(), client.getValue(), reason,
                    audits.of("sop.import", client.getKey(), Map.of("reason", reason,
                            "rules", JsonReader.MAPPER.valueToTree(SopRulesCodec.json(client.getValue()))))));
        }
        List<String> untouched = stored.keySet().stream().filter(client -> !wanted.containsKey(client)).toList();
        if (dryRun || writes.isEmpty()) {
            return RestResponse.ok(new Imported(dryRun, changes, untouched));
        }
        List<SopVersions.Added> added;
        try {
            added = versions.addAll(writes, clock.instant());
        } catch (SopChangedMeanwhileException e) {
            throw Problem.of(Response.Status.CONFLICT, e.getMessage()).exception();
        }
        Map<String, SopVersions.Added> byClient = new TreeMap<>();
        for (int i = 0; i < added.size(); i++) {
            byClient.put(writes.get(i).clientId(), added.get(i));
            audits.logged(writes.get(i).audit(), added.get(i).auditId(), "version " + added.get(i).version().version());
        }
        List<ClientChange> done = changes.stream().map(c -> byClient.containsKey(c.clientId())
                ? new ClientChange(c.clientId(), c.change(), c.from(), byClient.get(c.clientId()).version().version(),
                byClient.get(c.clientId()).auditId()) : c).toList();
        return RestResponse.ok(new Imported(false, done, untouched));
    }

    private static JsonNode sopsOf(String document) {
        JsonNode root;
        try {
            root = document == null || document.isBlank() ? null : YAML_MAPPER.readTree(document);
        } catch (JsonProcessingException e) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "not YAML: " + e.getOriginalMessage(), "sops")
                    .exception();
        }
        if (root == null || !root.path("sops").isObject()) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request",
                    "a document of sops: {<clientId>: {rules: {...}}}, as GET /admin/sops/export writes it", "sops").exception();
        }
        return root.path("sops");
    }

    /** The rules of a request, every wrong field named in the 400 problem. */
    private static SopRules rules(JsonNode json) {
        if (json == null || json.isNull()) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request", "rules is required: the SOP's fields, whole", "rules")
                    .exception();
        }
        try {
            return SopRulesCodec.decode(json);
        } catch (SopRulesCodec.InvalidRulesException e) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Invalid SOP", e.getMessage(),
                    "rules." + e.errors().getFirst().field()).exception();
        }
    }

    private static void checkClientId(String clientId) {
        if (!InboundIds.isValidLoadId(clientId)) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Bad Request",
                    "a client id is 1 to 64 characters of A-Z, a-z, 0-9, _ and -", "clientId").exception();
        }
    }
}
