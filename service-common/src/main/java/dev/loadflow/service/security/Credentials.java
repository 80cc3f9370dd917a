package dev.loadflow.service.security;

import org.eclipse.microprofile.config.Config;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes credentials out of text that outlives a request: failure reasons (which viewers read),
 * alert messages, log lines and audit entries. Two kinds are replaced with {@value #MASK}: the
 * values of this service's own secret settings (every key that names a token, secret, password,
 * key or webhook URL, {@link #learn}), wherever they appear; and what has the shape of a
 * credential whoever it belongs to (a password in a URL, a Slack webhook's path or token, a
 * Standard Webhooks secret, an {@code Authorization} value, a query parameter named like a key).
 */
public final class Credentials {

    public static final String MASK = "***";

    /** Setting names whose values are credentials (the last part of a key, or an env name's end). */
    private static final Pattern SECRET_KEY = Pattern.compile(
            "(?i).*(token|secret|password|[-_.]key|apikey|webhook[-_]?url|webhooks[._][^.]+)$");
    /** Shorter values are not looked for (a port or a flag is no credential, and would mask half a text). */
    private static final int SHORTEST = 8;

    private static final List<Shape> SHAPES = List.of(
            new Shape(Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s:\"']+:[^/@\\s\"']+@"), "$1" + MASK + "@"),
            new Shape(Pattern.compile("(?i)\\b(hooks\\.slack(?:-gov)?\\.com/)[A-Za-z0-9/_-]+"), "$1" + MASK),
            new Shape(Pattern.compile("\\b(xox[abposr]|xapp)-[A-Za-z0-9-]+"), "$1-" + MASK),
            new Shape(Pattern.compile("\\bwhsec_[A-Za-z0-9+/=]+"), "whsec_" + MASK),
            new Shape(Pattern.compile("(?i)\\b(Bearer|Basic)\\s+[A-Za-z0-9._~+/=-]{8,}"), "$1 " + MASK),
            new Shape(Pattern.compile("(?i)([?&](?:access_token|token|api_key|apikey|key|secret|sig|signature|password|auth)=)[^&\\s\"'#]+"),
                    "$1" + MASK));

    private record Shape(Pattern pattern, String replacement) {
    }

    /** The secret values this service was configured with. */
    private static final Set<String> KNOWN = ConcurrentHashMap.newKeySet();
    /** The same, longest first (a secret inside a longer one is masked with it). */
    private static volatile List<String> longestFirst = List.of();

    private Credentials() {
    }

    /** Takes note of the values of {@code config}'s secret settings, so that {@link #redact} masks them. */
    public static void learn(Config config) {
        for (String name : config.getPropertyNames()) {
            if (SECRET_KEY.matcher(name).matches()) {
                config.getOptionalValue(name, String.class).ifPresent(Credentials::learn);
            }
        }
    }

    /** Takes note of one secret value (a comma-separated list's values each). */
    public static void learn(String value) {
        if (value == null) {
            return;
        }
        for (String part : value.split(",")) {
            String secret = part.trim();
            if (secret.length() >= SHORTEST && KNOWN.add(secret)) {
                longestFirst = KNOWN.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
            }
        }
    }

    /** Whether {@code settingName} is one whose value is a credential. */
    public static boolean isSecretSetting(String settingName) {
        return SECRET_KEY.matcher(settingName.toLowerCase(Locale.ROOT)).matches();
    }

    /** {@code text} with every credential replaced by {@value #MASK}; {@code null} stays {@code null}. */
    public static String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = text;
        for (String secret : longestFirst) {
            if (out.contains(secret)) {
                out = out.replace(secret, MASK);
            }
        }
        for (Shape shape : SHAPES) {
            Matcher m = shape.pattern().matcher(out);
            if (m.find()) {
                out = m.replaceAll(shape.replacement());
            }
        }
        return out;
    }
}
