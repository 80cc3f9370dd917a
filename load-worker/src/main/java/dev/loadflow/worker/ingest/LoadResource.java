package dev.loadflow.worker.ingest;

import dev.loadflow.model.event.EventPayload;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.id.InboundIds;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.model.log.LoadLog;
import dev.loadflow.model.projection.LoadState;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.security.IngestSources;
import dev.loadflow.service.security.Roles;
import dev.loadflow.service.security.StaticTokens;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.eventlog.EventStore;
import dev.loadflow.service.store.DatabaseUnreachable;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.virtual.threads.VirtualThreads;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.jboss.resteasy.reactive.RestResponse;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ExecutorService;

/**
 * Ingest and the operator's read of a load. An event is validated strictly, then queued (with
 * the events of concurrent requests: {@link Ingests}); the worker's run logs it. Ingest is
 * idempotent on the event id: an event already logged or already queued answers 200 and
 * changes nothing (the first body of an id is the one kept; a copy that arrives while the first
 * is being logged may be queued again and answer 202, and its run finds the event logged and
 * changes nothing). Only sources ingest (their token
 * names them, and the name is kept with the event), each only the event types it owns, and a
 * {@code LoadAssigned} only for a client it owns and a load no other source assigned;
 * viewers and operators read, and only operators see phone numbers unmasked.
 */
@Path("/loads/{loadId}")
public class LoadResource {

    /** The most bytes of an event's body (UTF-8): the largest event (an SMS of 1,600 characters) takes a tenth of it. */
    static final int MAX_BODY_BYTES = 64 * 1024;

    private final EventStore events;
    private final Ingests ingests;
    private final Clock clock;
    private final SecurityIdentity caller;
    private final ExecutorService writers;
    private final SourcePace pace;
    private final IngestSources.OccurredAt window;

    LoadResource(EventStore events, Ingests ingests, Clock clock, SecurityIdentity caller,
                 @VirtualThreads ExecutorService writers, SourcePace pace, IngestSources sources) {
        this.pace = pace;
        this.window = sources.occurredAt();
        this.events = events;
        this.ingests = ingests;
        this.clock = clock;
        this.caller = caller;
        this.writers = writers;
    }

    /**
     * Not blocking, so the body is read on the event loop as it arrives (a blocking endpoint reads
     * it through a blocking stream, a hand-off per chunk); the event is parsed there too, and the
     * write, which waits for its commit, runs on a virtual thread.
     */
    @POST
    @Path("/events")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.SOURCE)
    @Operation(summary = "Ingest one event of the load: 202 queued, 200 when its event id was queued or logged already")
    @APIResponse(responseCode = "202", description = "queued",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Receipt.class)))
    @APIResponse(responseCode = "200", description = "already queued or already processed: nothing changed",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Receipt.class)))
    public Uni<RestResponse<Receipt>> ingest(@PathParam("loadId") String loadId, String body) {
        if (body != null && body.length() > MAX_BODY_BYTES / 3 && body.getBytes(StandardCharsets.UTF_8).length > MAX_BODY_BYTES) {
            throw Problem.of(Response.Status.REQUEST_ENTITY_TOO_LARGE, "Event too large",
                    "an event's body is at most " + MAX_BODY_BYTES + " bytes", "$").exception();
        }
        // the request's trace (its traceparent header, or the trace this request began) goes with the event
        Instant now = clock.instant();
        InboundEvent event = EventCodec.parseIngest(loadId, body, now)
                .withSource(caller.getPrincipal().getName()).withTraceparent(Traces.current());
        if (event.occurredAt().isBefore(now.minus(window.maxAge())) || event.occurredAt().isAfter(now.plus(window.maxAhead()))) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Invalid event",
                    "occurredAt must be within " + window.maxAge() + " before and " + window.maxAhead()
                            + " after the worker's clock (" + now + "), got " + event.occurredAt(), "occurredAt").exception();
        }
        if (!StaticTokens.mayPost(caller, event.type())) {
            throw Problem.of(Response.Status.FORBIDDEN, "Event type not owned",
                    "source " + caller.getPrincipal().getName() + " may not post " + event.type().wire() + " events",
                    "type").exception();
        }
        if (event.payload() instanceof EventPayload.LoadAssigned assigned && !StaticTokens.mayAssign(caller, assigned.clientId())) {
            throw Problem.of(Response.Status.FORBIDDEN, "Client not owned",
                    "source " + event.source() + " may not assign loads to client " + assigned.clientId(),
                    "payload.clientId").exception();
        }
        pace.admit(caller.getPrincipal().getName());
        return Uni.createFrom().item(() -> {
            LoadQueue.Intake intake;
            try {
                if (event.payload() instanceof EventPayload.LoadAssigned) {
                    refuseReassignment(event);
                }
                intake = ingests.submit(QueueMessage.of(event));
            } catch (RuntimeException e) {
                if (DatabaseUnreachable.is(e)) {
                    throw DatabaseUnreachable.refusal("the event");
                }
                throw e;
            }
            return switch (intake) {
                case LOGGED -> RestResponse.ok(receipt(event, "already processed"));
                case QUEUED -> RestResponse.accepted(receipt(event, "queued"));
                case ALREADY_QUEUED -> RestResponse.ok(receipt(event, "already queued"));
            };
        }).runSubscriptionOn(writers);
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RunOnVirtualThread
    @RolesAllowed({Roles.VIEWER, Roles.OPERATOR})
    @Operation(summary = "The load's projected state, version and log (phone numbers masked for a viewer)")
    public RestResponse<LoadView> load(@PathParam("loadId") String loadId) {
        if (!InboundIds.isValidLoadId(loadId)) {
            throw Problem.of(Response.Status.BAD_REQUEST, "Invalid load id",
                    "loadId must be 1 to 64 characters of [A-Za-z0-9_-], got '" + loadId + "'", "loadId").exception();
        }
        LoadLog log = events.read(loadId);
        if (log.version() == 0) {
            throw Problem.of(Response.Status.NOT_FOUND, "No such load",
                    "load " + loadId + " has no log yet (an event still in the queue is not logged until processed)", null)
                    .exception();
        }
        return RestResponse.ok(LoadView.of(log));
    }

    /**
     * A load belongs to the source that assigned it: another source's assignment is refused here
     * when the load's log shows who assigned it (one queued before that assignment was logged is
     * refused when it is run: {@link dev.loadflow.model.policy.DeterministicFilter}).
     */
    private void refuseReassignment(InboundEvent event) {
        LoadState state = LoadState.project(events.read(event.loadId()));
        if (state.refusesAssignmentBy(event.source()) && !state.hasProcessed(event.eventId())) {
            throw Problem.of(Response.Status.FORBIDDEN, "Load assigned by another source",
                    "load " + event.loadId() + " is assigned by source " + state.assignedBy() + "; source "
                            + event.source() + " may not re-assign it", "loadId").exception();
        }
    }

    private static Receipt receipt(InboundEvent event, String status) {
        return new Receipt(event.loadId(), event.eventId(), status);
    }

    /** What ingest answers: the event's ids and what became of it (queued, already queued, already processed). */
    @RegisterForReflection
    public record Receipt(String loadId, String eventId, String status) {
    }
}
