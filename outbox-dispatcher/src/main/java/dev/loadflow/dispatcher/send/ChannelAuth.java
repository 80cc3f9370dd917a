package dev.loadflow.dispatcher.send;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * The headers a channel is authenticated with ({@code loadflow.channels.<c>.auth}), made once at
 * start from its settings; a setting that cannot work (a kind without its secret, a basic secret
 * without its colon, a header without its name) stops the start with the key to fix.
 */
final class ChannelAuth {

    private ChannelAuth() {
    }

    static Map<String, String> headers(String channel, String kind, Optional<String> secret, Optional<String> header) {
        String prefix = "loadflow.channels." + channel + ".";
        return switch (kind) {
            case "none" -> Map.of();
            case "bearer" -> Map.of("Authorization", "Bearer " + required(prefix, kind, secret));
            case "basic" -> {
                String userAndPassword = required(prefix, kind, secret);
                if (!userAndPassword.contains(":")) {
                    throw new IllegalArgumentException(prefix + "auth-secret is user:password for auth=basic");
                }
                yield Map.of("Authorization", "Basic "
                        + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8)));
            }
            case "header" -> Map.of(header.filter(name -> !name.isBlank()).orElseThrow(() ->
                    new IllegalArgumentException(prefix + "auth-header names the header for auth=header")),
                    required(prefix, kind, secret));
            default -> throw new IllegalArgumentException(prefix + "auth is none, bearer, basic or header; got '" + kind + "'");
        };
    }

    private static String required(String prefix, String kind, Optional<String> secret) {
        return secret.filter(s -> !s.isBlank()).orElseThrow(() ->
                new IllegalArgumentException(prefix + "auth-secret is needed for auth=" + kind));
    }
}
