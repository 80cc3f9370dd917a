package dev.loadflow.model.policy;

import dev.loadflow.model.action.Urgency;
import dev.loadflow.model.event.Risk;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One client's standard operating procedure: the client's name and time zone, the hours in which
 * a driver may be texted, which pings open an ETA ask, each attempt's wait and text, how urgent the
 * Hero task is when the attempts are spent, the Slack channel for answers, and the webhooks told of
 * each stage change. A text may hold {@code {loadId}}, {@code {attempt}}, {@code {stage}} and
 * {@code {clientName}}.
 */
public record SopRules(String clientName, ZoneId timeZone, SmsHours smsHours, Set<Risk> askOn, List<Attempt> attempts,
                       int maxSegments, Urgency heroTaskPriority, String heroSlackChannel, List<URI> stageWebhooks) {

    /** The time zone of an SOP that names none. */
    public static final ZoneId UTC = ZoneId.of("UTC");

    /** The most segments a text may take when an SOP does not say (ten: Twilio's 1,600 characters). */
    public static final int DEFAULT_MAX_SEGMENTS = 10;

    /**
     * One attempt of an ETA ask: the text sent, and how long to wait for an answer before the next
     * attempt (or the Hero task). An {@code urgent} attempt is texted even outside the SMS hours.
     */
    public record Attempt(Duration waitFor, String text, boolean urgent) {
        public Attempt {
            Objects.requireNonNull(waitFor, "waitFor");
            Objects.requireNonNull(text, "text");
            if (waitFor.isNegative() || waitFor.isZero()) {
                throw new IllegalArgumentException("an attempt's wait must be positive, got " + waitFor);
            }
        }
    }

    /**
     * The local hours in which a driver may be texted, {@code from} inclusive, {@code to} exclusive;
     * {@code from} after {@code to} spans midnight (22:00 to 06:00).
     */
    public record SmsHours(LocalTime from, LocalTime to) {
        public SmsHours {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            if (from.equals(to)) {
                throw new IllegalArgumentException("SMS hours from and to must differ, got " + from + " twice");
            }
        }

        public boolean allows(LocalTime time) {
            return from.isBefore(to) ? !time.isBefore(from) && time.isBefore(to) : !time.isBefore(from) || time.isBefore(to);
        }
    }

    /** Rules without stage webhooks. */
    public SopRules(Duration retryAfter, int maxAttempts, String etaRequestText, String heroSlackChannel) {
        this(retryAfter, maxAttempts, etaRequestText, heroSlackChannel, List.of());
    }

    /**
     * The rules of the configuration keys: {@code maxAttempts} attempts of the same wait and text,
     * at any hour, on high-risk pings, an urgent Hero task at the end.
     */
    public SopRules(Duration retryAfter, int maxAttempts, String etaRequestText, String heroSlackChannel,
                    List<URI> stageWebhooks) {
        this(null, UTC, null, EnumSet.of(Risk.HIGH), same(retryAfter, maxAttempts, etaRequestText),
                DEFAULT_MAX_SEGMENTS, Urgency.URGENT, heroSlackChannel, stageWebhooks);
    }

    public SopRules {
        Objects.requireNonNull(timeZone, "timeZone");
        Objects.requireNonNull(heroTaskPriority, "heroTaskPriority");
        Objects.requireNonNull(heroSlackChannel, "heroSlackChannel");
        askOn = askOn.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(askOn));
        attempts = List.copyOf(attempts);
        stageWebhooks = List.copyOf(stageWebhooks);
        if (attempts.isEmpty()) {
            throw new IllegalArgumentException("an SOP has at least one attempt");
        }
        if (maxSegments < 1) {
            throw new IllegalArgumentException("max-segments must be at least 1, got " + maxSegments);
        }
    }

    private static List<Attempt> same(Duration wait, int count, String text) {
        if (count < 1) {
            throw new IllegalArgumentException("max-attempts must be at least 1, got " + count);
        }
        return Collections.nCopies(count, new Attempt(Objects.requireNonNull(wait, "retryAfter"),
                Objects.requireNonNull(text, "etaRequestText"), false));
    }

    /** How many attempts before a Hero takes over. */
    public int maxAttempts() {
        return attempts.size();
    }

    /** The first attempt's wait. */
    public Duration retryAfter() {
        return attempts.getFirst().waitFor();
    }

    /** The first attempt's text. */
    public String etaRequestText() {
        return attempts.getFirst().text();
    }

    /** Attempt {@code n} (1 for the first); past the last, the last. */
    public Attempt attempt(int n) {
        return attempts.get(Math.min(Math.max(n, 1), attempts.size()) - 1);
    }

    /** Whether a ping of {@code risk} opens an ETA ask. */
    public boolean asksOn(Risk risk) {
        return askOn.contains(risk);
    }

    /** Attempt {@code attempt}'s text for a load, its placeholders filled. */
    public String text(int attempt, String loadId, String stage) {
        return render(attempt(attempt).text(), loadId, attempt, stage, clientName);
    }

    /** {@code text} with its placeholders filled. */
    public static String render(String text, String loadId, int attempt, String stage, String clientName) {
        return text.replace("{loadId}", loadId).replace("{attempt}", Integer.toString(attempt))
                .replace("{stage}", stage == null ? "" : stage).replace("{clientName}", clientName == null ? "" : clientName);
    }

    /**
     * When a text decided at {@code now} may go out: {@code now} inside the SMS hours (or when the
     * SOP has none), else the next time they open in the client's time zone.
     */
    public Instant textableAt(Instant now) {
        if (smsHours == null) {
            return now;
        }
        ZonedDateTime local = now.atZone(timeZone);
        if (smsHours.allows(local.toLocalTime())) {
            return now;
        }
        ZonedDateTime opens = local.with(smsHours.from());
        return (opens.isAfter(local) ? opens : opens.plusDays(1).with(smsHours.from())).toInstant();
    }
}
