package dev.loadflow.worker.twilio;

import io.quarkus.runtime.annotations.RegisterForReflection;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.model.json.JsonReader;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.store.DatabaseUnreachable;
import dev.loadflow.service.trace.Traces;
import dev.loadflow.store.inbound.PgInboundMessages;
import dev.loadflow.store.queue.LoadQueue;
import dev.loadflow.store.queue.QueueMessage;
import dev.loadflow.worker.ingest.Ingests;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A driver's SMS as Twilio delivers it: the number's (or Messaging Service's) incoming-message
 * webhook, a form-encoded {@code POST} with {@code MessageSid}, {@code From}, {@code To} and
 * {@code Body}, signed in {@code X-Twilio-Signature}. The signature is the caller's
 * authentication: a request without Twilio's signature of the configured URL is refused
 * ({@code 403}) and nothing is written. The SMS goes to the load {@link InboundRoutes} finds as an
 * {@code InboundSms} whose event id is the {@code MessageSid}; the message's route is recorded
 * first ({@code inbound_message}), so Twilio's retries, and a captured webhook replayed after the
 * driver moved loads, land on that load only. A number no load is assigned to is kept on a load
 * of its own day, within {@link StrangerGate}'s limits, where the SOP asks the Hero desk once.
 * The answer is an empty TwiML document: loadflow replies to drivers through its own decisions,
 * not through the webhook's answer.
 */
@Path("/sources/twilio/sms")
public class TwilioSmsResource {

    private static final Logger LOG = Logger.getLogger(TwilioSmsResource.class);
    static final String SIGNATURE = "X-Twilio-Signature";
    static final String EMPTY_TWIML = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response></Response>";
    /** A Twilio message's id: {@code SM} (or {@code MM}) and 32 hex digits. */
    static final Pattern MESSAGE_SID = Pattern.compile("(SM|MM)[0-9a-fA-F]{32}");
    /** The source name the events carry. */
    static final String SOURCE = "twilio";

    private final TwilioSourceConfig config;
    private final InboundRoutes routes;
    private final PgInboundMessages inbound;
    private final StrangerGate strangers;
    private final Ingests ingests;
    private final Clock clock;

    TwilioSmsResource(TwilioSourceConfig config, InboundRoutes routes, PgInboundMessages inbound, StrangerGate strangers,
                      Ingests ingests, Clock clock) {
        this.config = config;
        this.routes = routes;
        this.inbound = inbound;
        this.strangers = strangers;
        this.ingests = ingests;
        this.clock = clock;
    }

    @POST
    @PermitAll
    @RunOnVirtualThread
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Produces({"text/xml", "application/problem+json"})
    @Operation(summary = "Twilio's signed webhook of a driver's SMS: the SMS is ingested for the load its sender is assigned to")
    @APIResponse(responseCode = "200", description = "taken: an empty TwiML document (loadflow answers through its own decisions)",
            content = @Content(mediaType = "text/xml", schema = @Schema(type = SchemaType.STRING)))
    public Response sms(MultivaluedMap<String, String> form, @HeaderParam(SIGNATURE) String signature) {
        if (config.authToken().isEmpty() || config.webhookUrl().isEmpty()) {
            return Problem.of(Response.Status.NOT_FOUND, "Twilio source not configured",
                    "set loadflow.sources.twilio.auth-token and loadflow.sources.twilio.webhook-url to take SMS from Twilio",
                    null).response();
        }
        Map<String, String> params = TwilioSignature.fields(form);
        if (!TwilioSignature.valid(config.webhookUrl().get().toString(), params, config.authToken().get(), signature)) {
            LOG.warnf("an SMS webhook without Twilio's signature of %s was refused", config.webhookUrl().get());
            return TwilioSignature.refused();
        }
        String sid = params.get("MessageSid");
        String from = params.get("From");
        if (sid == null || !MESSAGE_SID.matcher(sid).matches()) {
            return Problem.of(Response.Status.BAD_REQUEST, "Invalid Twilio webhook", "MessageSid must be SM or MM and 32 hex digits",
                    "MessageSid").response();
        }
        if (from == null || from.isBlank()) {
            return Problem.of(Response.Status.BAD_REQUEST, "Invalid Twilio webhook", "From is required", "From").response();
        }
        try {
            return ingest(sid, from, params.get("To"), params.get("MessagingServiceSid"), params.getOrDefault("Body", ""));
        } catch (RuntimeException e) {
            if (DatabaseUnreachable.is(e)) {
                return DatabaseUnreachable.answer("the SMS"); // Twilio retries it
            }
            throw e;
        }
    }

    private Response ingest(String sid, String from, String to, String messagingService, String text) {
        Instant now = clock.instant();
        String loadId = inbound.loadOf(SOURCE, sid).orElse(null);
        if (loadId == null) {
            InboundRoutes.Route route = routes.of(from, to, messagingService);
            if (route.kind() == InboundRoutes.Kind.STRANGER) {
                StrangerGate.Verdict verdict = strangers.admit(route.loadId());
                if (verdict != StrangerGate.Verdict.KEPT) {
                    // answered, so Twilio does not send it again; counted, not kept
                    LOG.warnf("Twilio SMS %s from a number no load has (load %s) not kept: %s", sid, route.loadId(), verdict);
                    return Response.ok(EMPTY_TWIML, "text/xml").build();
                }
            }
            loadId = inbound.route(SOURCE, sid, route.loadId(), now);
            LOG.debugf("Twilio SMS %s routed to load %s: %s", sid, loadId, route.why());
        }
        // checked as every ingest is: the body a source would post for this SMS
        InboundEvent event = EventCodec.parseIngest(loadId, ingestBody(new SmsIngest(sid, "InboundSms", now.toString(),
                new SmsIngest.Payload(from, text))), now).withSource(SOURCE).withTraceparent(Traces.current());
        LoadQueue.Intake intake = ingests.submit(QueueMessage.of(event));
        LOG.debugf("Twilio SMS %s for load %s: %s", sid, loadId, intake);
        return Response.ok(EMPTY_TWIML, "text/xml").build();
    }

    /** The ingest API's body of an {@code InboundSms}. */
    @RegisterForReflection
    record SmsIngest(String eventId, String type, String occurredAt, Payload payload) {

        @RegisterForReflection
        record Payload(String from, String text) {
        }
    }

    private static String ingestBody(SmsIngest body) {
        try {
            return JsonReader.MAPPER.writeValueAsString(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
