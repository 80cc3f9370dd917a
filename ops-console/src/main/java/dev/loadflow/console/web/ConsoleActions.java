package dev.loadflow.console.web;

import dev.loadflow.console.admin.DispatcherAdmin;
import dev.loadflow.console.admin.WorkerAdmin;
import dev.loadflow.console.admin.WorkerSops;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.service.admin.HeldRepairAnswer;
import dev.loadflow.service.admin.OperatorRequests;
import dev.loadflow.service.admin.ReplayAnswer;
import dev.loadflow.service.admin.SopAnswers;
import dev.loadflow.service.security.PhoneMask;
import dev.loadflow.service.security.Roles;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The console's changes. None is made here: each goes to the owning service's admin API with
 * the signed-in person's own credential, so that service checks the role and writes the audit
 * row as it does for {@code curl}. A refusal is shown with the service's own words.
 */
@Path("/")
@Consumes(MediaType.APPLICATION_FORM_URLENCODED)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed(Roles.OPERATOR)
@RunOnVirtualThread
public class ConsoleActions {

    private final WorkerAdmin worker;
    private final WorkerSops workerSops;
    private final DispatcherAdmin dispatcher;
    private final ConsolePages pages;
    private final Caller caller;
    private final Clock clock;

    ConsoleActions(@RestClient WorkerAdmin worker, @RestClient WorkerSops workerSops, @RestClient DispatcherAdmin dispatcher,
                   ConsolePages pages, Caller caller, Clock clock) {
        this.worker = worker;
        this.workerSops = workerSops;
        this.dispatcher = dispatcher;
        this.pages = pages;
        this.caller = caller;
        this.clock = clock;
    }

    /** A client's next SOP version, from the edit form; the worker checks every field and audits it. */
    @POST
    @Path("/sops/{clientId}")
    public Response saveSop(@PathParam("clientId") String clientId, @FormParam("rules") String rules,
                            @FormParam("reason") String reason) {
        ConsolePages.checkClientId(clientId);
        if (ConsolePages.blankToNull(reason) == null) {
            throw ConsoleProblem.badRequest("A change needs a reason",
                    "Say why the SOP changes: the reason is kept with the version and in the audit trail.");
        }
        SopAnswers.Added added = answered("load-worker", () -> workerSops.put(caller.authorization(), clientId,
                new SopAnswers.NewVersion(rulesJson(rules), reason.trim())));
        return Response.seeOther(UriBuilder.fromPath("/sops/{clientId}").queryParam("done", "saved")
                .queryParam("version", added.version()).build(clientId)).build();
    }

    /** What the edit form's rules would text and decide on a load; nothing is written, and the draft stays in the form. */
    @POST
    @Path("/sops/{clientId}/preview")
    public Object previewSop(@PathParam("clientId") String clientId, @FormParam("rules") String rules,
                             @FormParam("reason") String reason, @FormParam("loadId") String loadId) {
        ConsolePages.checkClientId(clientId);
        checkLoadId(loadId == null ? "" : loadId.strip());
        SopAnswers.Preview answer = answered("load-worker", () -> workerSops.preview(caller.authorization(), clientId,
                new SopAnswers.PreviewRequest(rulesJson(rules), loadId.strip())));
        return pages.sopWithDraft(clientId, rules, reason, loadId.strip(),
                SopViews.Preview.of(answer, caller.masked() ? PhoneMask::mask : text -> text));
    }

    /** The edit form's rules as JSON, or a 400 page saying where it is not JSON. */
    private static com.fasterxml.jackson.databind.JsonNode rulesJson(String rules) {
        try {
            com.fasterxml.jackson.databind.JsonNode json = JsonReader.MAPPER.readTree(rules == null ? "" : rules);
            if (json == null || !json.isObject()) {
                throw ConsoleProblem.badRequest("The rules are not a JSON object", "Write the SOP's fields as one JSON object.");
            }
            return json;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw ConsoleProblem.badRequest("The rules are not JSON", e.getOriginalMessage() + " (line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
        }
    }

    @POST
    @Path("/held/{loadId}/retry")
    public Response retry(@PathParam("loadId") String loadId, @FormParam("from") String from) {
        checkLoadId(loadId);
        answered("load-worker", () -> worker.retry(caller.authorization(), loadId));
        return back(from, loadId, "retry");
    }

    @POST
    @Path("/held/{loadId}/skip")
    public Response skip(@PathParam("loadId") String loadId, @FormParam("reason") String reason, @FormParam("from") String from) {
        checkLoadId(loadId);
        if (reason == null || reason.isBlank()) {
            throw ConsoleProblem.badRequest("A skip needs a reason",
                    "Say why the message is skipped: the reason is written in the load's log and the audit trail.");
        }
        answered("load-worker", () -> worker.skip(caller.authorization(), loadId, new OperatorRequests.Acknowledge(reason.trim())));
        return back(from, loadId, "skipped");
    }

    /** The dry run of a bulk retry or skip of held loads: which loads it would change, for the operator to confirm. */
    @POST
    @Path("/held/repair/preview")
    public Object repairPreview(@FormParam("since") String since, @FormParam("until") String until,
                                @FormParam("messageType") String messageType, @FormParam("action") String action,
                                @FormParam("reason") String reason, @FormParam("limit") Integer limit) {
        Views.HeldFilter filter = ConsolePages.heldFilter(since, until, messageType);
        OperatorRequests.Repair repair = repair(action, reason);
        HeldRepairAnswer.Preview answer = answered("load-worker", () -> worker.repairPreview(caller.authorization(),
                filter.since(), filter.until(), filter.messageType(), limit, true, repair));
        Instant now = clock.instant();
        List<Views.Held> loads = answer.loads().stream().map(h -> new Views.Held(h.loadId(), h.messageId(), h.messageType(),
                caller.masked() ? PhoneMask.mask(h.reason()) : h.reason(), Views.ago(h.since(), now), h.state())).toList();
        return Pages.heldRepairPreview(caller, filter, limit, ConsolePages.blankToNull(reason),
                new Views.RepairPreview(answer.action(), answer.matched(), loads));
    }

    @POST
    @Path("/held/repair")
    public Response repairMatching(@FormParam("since") String since, @FormParam("until") String until,
                                   @FormParam("messageType") String messageType, @FormParam("action") String action,
                                   @FormParam("reason") String reason, @FormParam("limit") Integer limit) {
        Views.HeldFilter filter = ConsolePages.heldFilter(since, until, messageType);
        OperatorRequests.Repair repair = repair(action, reason);
        HeldRepairAnswer.Repaired answer = answered("load-worker", () -> worker.repair(caller.authorization(),
                filter.since(), filter.until(), filter.messageType(), limit, false, repair));
        return Response.seeOther(UriBuilder.fromUri("/held?" + filter.query() + "done=bulk-" + answer.action()
                + "&count=" + answer.done().size() + "&refused=" + answer.refused().size()).build()).build();
    }

    /** A bulk repair's body, once the operator's choice holds: a retry, or a skip with its reason. */
    private static OperatorRequests.Repair repair(String action, String reason) {
        if (!"retry".equals(action) && !"skip".equals(action)) {
            throw ConsoleProblem.badRequest("Retry or skip?", "Choose whether the held head messages are retried or skipped.");
        }
        if ("skip".equals(action) && ConsolePages.blankToNull(reason) == null) {
            throw ConsoleProblem.badRequest("A skip needs a reason",
                    "Say why the messages are skipped: the reason is written in each load's log and the audit trail.");
        }
        return new OperatorRequests.Repair(action, ConsolePages.blankToNull(reason) == null ? null : reason.trim());
    }

    /** The dry run: what a replay of these filters would do, for the operator to confirm. */
    @POST
    @Path("/dead/replay/preview")
    public Object preview(@FormParam("loadId") String loadId, @FormParam("actionType") String actionType,
                          @FormParam("since") String since, @FormParam("until") String until,
                          @FormParam("limit") Integer limit) {
        Views.DeadFilter filter = ConsolePages.deadFilter(loadId, actionType, since, until);
        return Pages.replayPreview(caller, filter, limit, answered("outbox-dispatcher", () -> dispatcher.replayPreview(
                caller.authorization(), filter.loadId(), filter.actionType(), filter.since(), filter.until(), limit, true)));
    }

    @POST
    @Path("/dead/replay")
    public Response replay(@FormParam("loadId") String loadId, @FormParam("actionType") String actionType,
                           @FormParam("since") String since, @FormParam("until") String until,
                           @FormParam("limit") Integer limit) {
        Views.DeadFilter filter = ConsolePages.deadFilter(loadId, actionType, since, until);
        ReplayAnswer.Replayed answer = answered("outbox-dispatcher", () -> dispatcher.replay(caller.authorization(),
                filter.loadId(), filter.actionType(), filter.since(), filter.until(), limit, false));
        return Response.seeOther(UriBuilder.fromUri("/dead?" + filter.query() + "done=replayed&count="
                + answer.replayed()).build()).build();
    }

    /**
     * An operator's finding on an ambiguous send, after looking at the provider: {@code delivered}
     * (it has the message) or {@code resend} (it has not). The dispatcher audits it.
     */
    @POST
    @Path("/ambiguous/resolve")
    public Response resolve(@FormParam("outboxId") String outboxId, @FormParam("as") String as,
                            @FormParam("reason") String reason) {
        if (outboxId == null || outboxId.isBlank()) {
            throw ConsoleProblem.badRequest("No outbox row", "Say which ambiguous row is resolved.");
        }
        if (reason == null || reason.isBlank()) {
            throw ConsoleProblem.badRequest("A resolution needs a reason",
                    "Say what the provider showed: the reason is kept in the audit trail.");
        }
        answered("outbox-dispatcher", () -> dispatcher.resolve(caller.authorization(), outboxId,
                new OperatorRequests.Resolve(as == null ? "" : as, reason.trim())));
        return Response.seeOther(UriBuilder.fromPath("/ambiguous").queryParam("done", "delivered".equals(as) ? "delivered" : "resend")
                .build()).build();
    }

    /** A dead row handled another way: acknowledged with a reason, so retention may delete it a period later. */
    @POST
    @Path("/dead/acknowledge")
    public Response acknowledge(@FormParam("outboxId") String outboxId, @FormParam("reason") String reason) {
        if (outboxId == null || outboxId.isBlank()) {
            throw ConsoleProblem.badRequest("No outbox row", "Say which dead row is acknowledged.");
        }
        if (reason == null || reason.isBlank()) {
            throw ConsoleProblem.badRequest("An acknowledgement needs a reason",
                    "Say what was done instead of a replay: the reason is kept in the audit trail.");
        }
        answered("outbox-dispatcher", () -> dispatcher.acknowledge(caller.authorization(), outboxId,
                new OperatorRequests.Acknowledge(reason.trim())));
        return Response.seeOther(UriBuilder.fromPath("/dead").queryParam("done", "acknowledged").build()).build();
    }

    /** Back where the operator acted: the load's page, or the held list. */
    private static Response back(String from, String loadId, String done) {
        return Response.seeOther("load".equals(from)
                ? UriBuilder.fromPath("/loads/{loadId}").queryParam("done", done).build(loadId)
                : UriBuilder.fromPath("/held").queryParam("done", done).queryParam("load", loadId).build()).build();
    }

    private static void checkLoadId(String loadId) {
        if (!InboundIds.isValidLoadId(loadId)) {
            throw ConsoleProblem.badRequest("Not a load id", "A load id is 1 to 64 characters of A-Z, a-z, 0-9, _ and -; got '"
                    + ConsolePages.abbreviate(loadId) + "'.");
        }
    }

    /** The admin API's answer when it said yes; its refusal (status and detail) as the page otherwise. */
    private static <T> T answered(String service, java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (WebApplicationException refused) {
            try (Response answer = refused.getResponse()) {
                String body = answer.hasEntity() ? answer.readEntity(String.class) : "";
                throw new ConsoleProblem(answer.getStatus(), service + " refused the change", detail(body));
            }
        } catch (ProcessingException e) {
            throw new ConsoleProblem(502, service + " did not answer",
                    "The change was not made: " + service + " could not be reached (" + e.getMessage() + "). Try again.");
        }
    }

    /** A problem+json body's {@code detail}, or the body itself when it is not one. */
    private static String detail(String body) {
        try {
            return JsonReader.MAPPER.readTree(body).path("detail").asText(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException notJson) {
            return body;
        }
    }
}
