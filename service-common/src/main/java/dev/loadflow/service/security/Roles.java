package dev.loadflow.service.security;

/**
 * Who may do what. Sources ingest; people hold {@link #VIEWER} and/or {@link #OPERATOR} in
 * their JWT's {@code groups}; the break-glass token holds both.
 */
public final class Roles {

    /** A system that sends events (telematics, the SMS gateway): {@code POST /loads/{loadId}/events}. */
    public static final String SOURCE = "loadflow-source";

    /** Reads: every {@code GET} under {@code /admin/}, and {@code GET /loads/{loadId}} with phone numbers masked. */
    public static final String VIEWER = "loadflow-viewer";

    /** Changes: every change under {@code /admin/}; sees phone numbers unmasked. */
    public static final String OPERATOR = "loadflow-operator";

    /** The principal of the break-glass credential ({@code loadflow.admin.token}). */
    public static final String BREAK_GLASS = "admin-token";

    private Roles() {
    }
}
