package dev.loadflow.dispatcher.example;

import dev.loadflow.model.action.Action;
import dev.loadflow.model.action.ActionType;

import java.util.Objects;

/** An example of an added action type: an email to a driver, as step {@code attempt} of the ask {@code subject}. */
public record SendEmail(String subject, int attempt, String to, String text) implements Action.Extension {

    public SendEmail {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(text, "text");
    }

    @Override
    public ActionType type() {
        return EmailKind.TYPE;
    }
}
