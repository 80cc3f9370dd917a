package dev.loadflow.dispatcher.send;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Per-client (or per-channel) settings keyed by an id that may hold dashes, such as
 * {@code loadflow.channels.stage-webhooks.clients.client-a.secret}. An environment variable cannot
 * spell a dash: SmallRye Config reads {@code LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS__CLIENT_A__SECRET}
 * (the id between double underscores) as the id {@code client.a}, and passes over the form with
 * single underscores, whose id it cannot tell from the key's other parts. So an id is looked up by
 * its folded form, in which case is ignored and {@code -}, {@code .} and {@code _} are one
 * character: {@code client-a}, {@code client.a} and {@code CLIENT_A} are the same id. And a
 * variable of such a setting that reaches no id refuses the service's start, naming the form
 * that works, instead of leaving a client's webhooks unsigned without a word.
 */
public final class PerClientKeys {

    private PerClientKeys() {
    }

    /** {@code id} folded: lower case, with {@code -} and {@code .} as {@code _}. */
    public static String fold(String id) {
        return dev.loadflow.service.config.ClientIds.fold(id);
    }

    /**
     * {@code settings} keyed by their ids' folded forms; two ids that fold to one refuse the start.
     *
     * @param property the settings' property, with {@code <id>} where the id goes (for the message)
     */
    public static <V> Map<String, V> folded(Map<String, V> settings, String property) {
        Map<String, V> folded = new HashMap<>();
        Map<String, String> seen = new HashMap<>();
        settings.forEach((id, value) -> {
            String key = fold(id);
            String other = seen.putIfAbsent(key, id);
            if (other != null) {
                throw new IllegalStateException(property.replace("<id>", id) + " and " + property.replace("<id>", other)
                        + " name one id: ids that differ only in case, '-', '.' or '_' cannot be told apart");
            }
            folded.put(key, value);
        });
        return folded;
    }

    /**
     * Refuses a start where an environment variable of a per-id setting ({@code prefix}, the id,
     * then {@code suffix}) reached no configured id: it would be silently ignored. {@code suffix}
     * may be empty (the setting is the id's value itself).
     *
     * @param env      the process's environment
     * @param prefix   e.g. {@code LOADFLOW_CHANNELS_STAGE_WEBHOOKS_CLIENTS_}
     * @param suffix   e.g. {@code _SECRET}, or empty
     * @param ids      the ids the configuration holds (as read)
     * @param property the property, with {@code <id>} where the id goes
     */
    public static void checkEnvironment(Map<String, String> env, String prefix, String suffix, Set<String> ids,
                                        String property) {
        Set<String> known = new TreeSet<>();
        ids.forEach(id -> known.add(fold(id)));
        Set<String> lost = new TreeSet<>();
        for (String name : env.keySet()) {
            if (!name.startsWith(prefix) || name.length() <= prefix.length() + suffix.length() || !name.endsWith(suffix)) {
                if (name.startsWith(prefix)) {
                    lost.add(name);
                }
                continue;
            }
            String id = name.substring(prefix.length(), name.length() - suffix.length());
            if (id.length() > 2 && id.startsWith("_") && id.endsWith("_")) {
                id = id.substring(1, id.length() - 1); // the quoted form: the id between double underscores
            }
            if (!known.contains(fold(id))) {
                lost.add(name);
            }
        }
        if (!lost.isEmpty()) {
            String example = property.replace("<id>", "client-a");
            throw new IllegalStateException("environment variable(s) " + lost + " set no " + property
                    + ": they would be ignored. Write the id between double underscores (" + prefix + "_CLIENT_A_"
                    + suffix + " for " + example + "), or set the property under its own name");
        }
    }
}
