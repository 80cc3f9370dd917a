package dev.loadflow.dispatcher.example;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loadflow.model.action.ActionKind;
import dev.loadflow.model.action.ActionType;
import dev.loadflow.model.action.Channel;
import dev.loadflow.model.json.JsonReader;

/**
 * The registration of {@link SendEmail} (listed in
 * {@code META-INF/services/dev.loadflow.model.action.ActionKind}): its type {@code send_email} on
 * the channel {@code email}; a failed email reaches a Hero as a failed SMS does, not on-call.
 */
public final class EmailKind implements ActionKind<SendEmail> {

    public static final Channel EMAIL = Channel.register("email");
    public static final ActionType TYPE = ActionType.register("send_email", EMAIL, false);

    @Override
    public ActionType type() {
        return TYPE;
    }

    @Override
    public Class<SendEmail> javaType() {
        return SendEmail.class;
    }

    @Override
    public void write(SendEmail email, ObjectNode json) {
        json.put("to", email.to()).put("text", email.text());
    }

    @Override
    public SendEmail read(String subject, int attempt, JsonReader payload) {
        return new SendEmail(subject, attempt, payload.text("to"), payload.anyText("text"));
    }
}
