package dev.loadflow.model.event;

import java.util.Objects;

/**
 * The SOP a decision followed: a client and the number of its stored version, or version
 * {@link #CONFIGURED} when the client had no stored version and the configured rules decided
 * ({@code loadflow.sop.clients.<id>.*}, then {@code loadflow.sop.default.*}). {@code clientId} is
 * null for a load not assigned yet.
 */
public record SopRef(String clientId, int version) {

    /** The version of the configured rules: no stored version decided. */
    public static final int CONFIGURED = 0;

    public SopRef {
        if (version < 0) {
            throw new IllegalArgumentException("an SOP version is 0 (configured) or more, got " + version);
        }
    }

    /** Whether a stored version decided (not the configured rules). */
    public boolean stored() {
        return version > CONFIGURED;
    }

    @Override
    public String toString() {
        return Objects.requireNonNullElse(clientId, "no client") + (stored() ? " v" + version : ", configured rules");
    }
}
