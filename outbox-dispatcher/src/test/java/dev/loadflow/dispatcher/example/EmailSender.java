package dev.loadflow.dispatcher.example;

import dev.loadflow.dispatcher.protect.ChannelGuards;
import dev.loadflow.dispatcher.send.ChannelClients;
import dev.loadflow.dispatcher.send.ChannelSender;
import dev.loadflow.dispatcher.send.SendResult;
import dev.loadflow.model.action.Channel;
import dev.loadflow.store.outbox.OutboxRow;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * The dispatcher's side of {@link SendEmail}: {@code POST {example.email.url}/emails {"to", "text"}}
 * with the row's outbox id as {@code Idempotency-Key}, at most 16 requests in flight.
 */
@ApplicationScoped
public class EmailSender implements ChannelSender<SendEmail> {

    /** The body an email service takes. */
    @RegisterForReflection
    public record Email(String to, String text) {
    }

    private final Optional<URI> url;

    EmailSender(@ConfigProperty(name = "example.email.url") Optional<URI> url) {
        this.url = url;
    }

    @Override
    public Channel channel() {
        return EmailKind.EMAIL;
    }

    @Override
    public Class<SendEmail> actionType() {
        return SendEmail.class;
    }

    @Override
    public SendResult send(OutboxRow row, SendEmail email, ChannelClients http) {
        return url.map(base -> http.post(URI.create(base + "/emails"), Duration.ofSeconds(5), row.outboxId(),
                        new Email(email.to(), email.text())))
                .orElseGet(() -> new SendResult.Permanent("example.email.url is not configured"));
    }

    @Override
    public ChannelGuards.Pace pace() {
        return new ChannelGuards.Pace(16, 0);
    }
}
