package dev.loadflow.model.json;

/**
 * A JSON document that does not match its contract. {@link #field()} names the offending
 * field as a path ({@code payload.risk}), or {@code $} for the document itself, so an HTTP
 * problem body can tell the sender exactly what to fix.
 */
public class InvalidJsonException extends RuntimeException {

    private final String field;
    private final String problem;

    public InvalidJsonException(String field, String problem) {
        super(field + ": " + problem);
        this.field = field;
        this.problem = problem;
    }

    public String field() {
        return field;
    }

    public String problem() {
        return problem;
    }
}
