package dev.loadflow.dispatcher.send;

import dev.loadflow.dispatcher.provider.TwilioSms;
import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.Channel;
import dev.loadflow.store.outbox.OutboxRow;

import java.util.Optional;

/** SMS: {@code POST {sms.url}/messages {"to", "text"}}, or Twilio's Messages API where Twilio is the provider. */
final class SmsSender implements ChannelSender<Action.SendSms> {

    private final ChannelClients.Endpoint endpoint;
    private final Optional<TwilioSms> twilio;

    SmsSender(ChannelClients.Endpoint endpoint, Optional<TwilioSms> twilio) {
        this.endpoint = endpoint;
        this.twilio = twilio;
    }

    @Override
    public Channel channel() {
        return Channel.SMS;
    }

    @Override
    public Class<Action.SendSms> actionType() {
        return Action.SendSms.class;
    }

    @Override
    public SendResult send(OutboxRow row, Action.SendSms sms, ChannelClients http) {
        return twilio.map(provider -> provider.send(row.outboxId(), sms))
                .orElseGet(() -> http.send(endpoint, row.outboxId(), new ChannelBodies.Sms(sms.to(), sms.text())));
    }

    /** Twilio keeps no idempotency key; a generic endpoint as configured. */
    @Override
    public boolean dedupes() {
        return twilio.isEmpty() && endpoint.dedupes();
    }

    /** Twilio, which lists the messages to a number, when SMS goes through it. */
    @Override
    public Optional<Reconciler> reconciler() {
        return twilio.map(Reconciler.class::cast);
    }
}
