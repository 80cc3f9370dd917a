package dev.loadflow.service.config;

import java.util.Locale;

/**
 * A client id as a configuration key holds it: SmallRye reads an environment variable's key with
 * its case and punctuation lost ({@code CLIENT_A} for {@code client-a}), so ids in keys are
 * compared folded (lower case, {@code -} and {@code .} as {@code _}).
 */
public final class ClientIds {

    private ClientIds() {
    }

    /** {@code id} folded: {@code Client-A.eu} → {@code client_a_eu}. */
    public static String fold(String id) {
        return id.toLowerCase(Locale.ROOT).replace('-', '_').replace('.', '_');
    }
}
