package dev.loadflow.worker.twilio;

import dev.loadflow.model.id.ActionKey;
import dev.loadflow.service.problem.Problem;
import dev.loadflow.service.store.DatabaseUnreachable;
import dev.loadflow.store.provider.ProviderMessages;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.Map;

/**
 * Twilio's status callback of a message the dispatcher sent: form-encoded {@code MessageSid} and
 * {@code MessageStatus}, to the URL the send named, which carries the row's outbox id
 * ({@code ?outboxId=…}), signed in {@code X-Twilio-Signature} as the incoming-message webhook is.
 * The message is recorded as that row's ({@code provider_message}): a reconcile after a lost
 * answer then knows which message is the row's, even when two rows sent one text to one number.
 * A message another row holds already is refused ({@code 409}), and the row keeps nothing of it.
 */
@Path("/sources/twilio/status")
public class TwilioStatusResource {

    private static final Logger LOG = Logger.getLogger(TwilioStatusResource.class);

    private final TwilioSourceConfig config;
    private final ProviderMessages messages;
    private final Clock clock;

    TwilioStatusResource(TwilioSourceConfig config, ProviderMessages messages, Clock clock) {
        this.config = config;
        this.messages = messages;
        this.clock = clock;
    }

    @POST
    @PermitAll
    @RunOnVirtualThread
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Produces("application/problem+json")
    @Operation(summary = "Twilio's signed status callback of a message the dispatcher sent: the message is recorded as its row's")
    @APIResponse(responseCode = "204", description = "recorded")
    public Response status(MultivaluedMap<String, String> form, @HeaderParam(TwilioSmsResource.SIGNATURE) String signature,
                           @Context UriInfo uri) {
        if (config.authToken().isEmpty() || config.statusUrlOrSibling().isEmpty()) {
            return Problem.of(Response.Status.NOT_FOUND, "Twilio source not configured",
                    "set loadflow.sources.twilio.auth-token and loadflow.sources.twilio.status-url (or webhook-url) "
                            + "to take Twilio's status callbacks", null).response();
        }
        String query = uri.getRequestUri().getRawQuery();
        String signedUrl = config.statusUrlOrSibling().get() + (query == null ? "" : "?" + query);
        Map<String, String> params = TwilioSignature.fields(form);
        if (!TwilioSignature.valid(signedUrl, params, config.authToken().get(), signature)) {
            LOG.warnf("a status callback without Twilio's signature of %s was refused", config.statusUrlOrSibling().get());
            return TwilioSignature.refused();
        }
        String outboxId = uri.getQueryParameters().getFirst("outboxId");
        String sid = params.get("MessageSid");
        if (outboxId == null || !validOutboxId(outboxId)) {
            return Problem.of(Response.Status.BAD_REQUEST, "Invalid Twilio status callback",
                    "the callback URL must name the row it reports: ?outboxId= an outbox id", "outboxId").response();
        }
        if (sid == null || !TwilioSmsResource.MESSAGE_SID.matcher(sid).matches()) {
            return Problem.of(Response.Status.BAD_REQUEST, "Invalid Twilio status callback",
                    "MessageSid must be SM or MM and 32 hex digits", "MessageSid").response();
        }
        String status = params.get("MessageStatus");
        ProviderMessages.Recorded recorded;
        try {
            recorded = messages.record(TwilioSmsResource.SOURCE, sid, outboxId, status, clock.instant());
        } catch (RuntimeException e) {
            if (DatabaseUnreachable.is(e)) {
                return DatabaseUnreachable.answer("the status callback");
            }
            throw e;
        }
        if (recorded == ProviderMessages.Recorded.HELD_BY_ANOTHER) {
            LOG.errorf("Twilio reports message %s for %s, which another row holds: not recorded", sid, outboxId);
            return Problem.of(Response.Status.CONFLICT, "Message held by another row",
                    sid + " is the receipt of another outbox row", "MessageSid").response();
        }
        LOG.debugf("Twilio message %s of %s: %s (%s)", sid, outboxId, status, recorded);
        return Response.noContent().build();
    }

    private static boolean validOutboxId(String outboxId) {
        try {
            ActionKey.parse(outboxId);
            return outboxId.length() <= 512;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
