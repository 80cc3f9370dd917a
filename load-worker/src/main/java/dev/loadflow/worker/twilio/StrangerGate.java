package dev.loadflow.worker.twilio;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many SMS from numbers no load is assigned to this worker keeps: at most
 * {@code strangers.per-number-per-day} a number a day (UTC) and {@code strangers.per-hour} in
 * all, so that anyone who texts the broker's number (or a script that does, from many numbers)
 * can neither flood the Hero desk nor the log. Counted per worker, by the application clock;
 * numbers are kept only as the opaque ids of their loads.
 */
@Singleton
public class StrangerGate {

    /** The most numbers counted at once; the oldest is forgotten past it. */
    static final int NUMBERS = 10_000;

    /** What became of a stranger's SMS. */
    public enum Verdict { KEPT, PAST_NUMBER_LIMIT, PAST_HOURLY_LIMIT }

    private final int perNumber;
    private final int perHour;
    private final Clock clock;
    private final Map<String, Integer> byNumberToday = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > NUMBERS;
        }
    };
    private Instant day;
    private Instant hour;
    private int thisHour;
    private final Counter kept;
    private final Counter pastNumber;
    private final Counter pastHour;

    public StrangerGate(TwilioSourceConfig config, Clock clock, MeterRegistry registry) {
        this.perNumber = config.strangers().perNumberPerDay();
        this.perHour = config.strangers().perHour();
        this.clock = clock;
        this.kept = counter(registry, "kept");
        this.pastNumber = counter(registry, "past_number_limit");
        this.pastHour = counter(registry, "past_hourly_limit");
    }

    private static Counter counter(MeterRegistry registry, String outcome) {
        return Counter.builder("loadflow.strangers.sms").description("SMS from numbers no load is assigned to, by what became of them")
                .tag("outcome", outcome).register(registry);
    }

    /** Counts one SMS of the stranger whose opaque id is {@code who}: kept, or past which limit. */
    public synchronized Verdict admit(String who) {
        Instant now = clock.instant();
        Instant today = now.truncatedTo(ChronoUnit.DAYS);
        Instant thisHourStart = now.truncatedTo(ChronoUnit.HOURS);
        if (!today.equals(day)) {
            day = today;
            byNumberToday.clear();
        }
        if (!thisHourStart.equals(hour)) {
            hour = thisHourStart;
            thisHour = 0;
        }
        int fromThem = byNumberToday.getOrDefault(who, 0);
        if (fromThem >= perNumber) {
            pastNumber.increment();
            return Verdict.PAST_NUMBER_LIMIT;
        }
        if (thisHour >= perHour) {
            pastHour.increment();
            return Verdict.PAST_HOURLY_LIMIT;
        }
        byNumberToday.put(who, fromThem + 1);
        thisHour++;
        kept.increment();
        return Verdict.KEPT;
    }
}
