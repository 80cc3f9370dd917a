package dev.loadflow.evals;

import dev.loadflow.evals.local.LocalRun;
import dev.loadflow.evals.sim.ChannelSimulator;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a test of the packaged services posted through their ingest, and what the database and
 * the channels must show at the end: every event posted logged once with one decision, every
 * outbox row delivered and each message at its channel once, every timer fired or cancelled,
 * the answered loads posted to Slack and the unanswered ones escalated, nothing held, parked,
 * dead or queued.
 */
final class Ledger {

    /** Client A's driver on every load. */
    static final String DRIVER = "+15550100";

    private final LocalRun stack;
    private final HttpClient http = HttpClient.newHttpClient();
    private final Set<String> posted = ConcurrentHashMap.newKeySet();
    private final List<String> answered = new ArrayList<>();
    private final List<String> unanswered = new ArrayList<>();

    Ledger(LocalRun stack) {
        this.stack = stack;
    }

    /** The event {@code eventId} of {@code load} was accepted (once however often it was posted). */
    void posted(String load, String eventId) {
        posted.add(load + "/" + eventId);
    }

    /** {@code load}'s driver answers its ETA ask. */
    synchronized void answered(String load) {
        answered.add(load);
    }

    /** {@code load}'s driver never answers: its timers follow up, then a Hero is asked. */
    synchronized void unanswered(String load) {
        unanswered.add(load);
    }

    synchronized List<String> unanswered() {
        return List.copyOf(unanswered);
    }

    /**
     * The sum of a counter's series on one service's scrape whose labels hold {@code labels}
     * ("": every series); each value may be followed by an exemplar.
     */
    double metric(LocalRun.Engine engine, int management, String name, String labels) throws Exception {
        String scrape = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + engine.port(management) + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("(?m)^" + name + "(\\{[^}]*})? ([0-9.eE+-]+)").matcher(scrape);
        double sum = 0;
        while (m.find()) {
            if (m.group(1) == null ? labels.isEmpty() : m.group(1).contains(labels)) {
                sum += Double.parseDouble(m.group(2));
            }
        }
        return sum;
    }

    /** The SMS the channel received for {@code load}. */
    long smsTo(String load) {
        return stack.simulator().delivered("sms").stream().filter(d -> d.idempotencyKey().startsWith(load + "/")).count();
    }

    /** Everything posted is decided, sent and fired: the queue and the outbox empty, no timer due, each unanswered load escalated. */
    synchronized void settled() throws Exception {
        assertThat(stack.count("SELECT count(*) FROM load_queue")).as("queued messages").isZero();
        assertThat(stack.count("SELECT count(*) FROM outbox WHERE status = 'pending'")).as("pending outbox rows").isZero();
        assertThat(stack.count("SELECT count(*) FROM timers WHERE status = 'scheduled'")).as("timers still to fire").isZero();
        assertThat(stack.count("SELECT count(DISTINCT load_id) FROM outbox WHERE channel = 'hero'")).as("loads escalated")
                .isEqualTo(unanswered.size());
    }

    /** The ledger, once {@link #settled}. */
    synchronized void check() throws Exception {
        assertThat(stack.count("SELECT count(*) FROM event_log WHERE kind = 'event' AND type IN ('LoadAssigned', 'LocationPing', 'InboundSms')"))
                .as("every event posted, logged once").isEqualTo(posted.size());
        assertThat(stack.count("SELECT count(*) FROM event_log e WHERE e.kind = 'event' AND NOT EXISTS (SELECT 1 FROM event_log d "
                + "WHERE d.load_id = e.load_id AND d.entry_id = 'dec:' || e.entry_id)")).as("events without their decision").isZero();
        assertThat(stack.rows("SELECT status, count(*) AS n FROM outbox GROUP BY status"))
                .as("every outbox row delivered").allSatisfy(row -> assertThat(row.get("status")).isEqualTo("dispatched"));
        for (String channel : List.of("sms", "hero", "slack")) {
            Set<String> rows = new HashSet<>();
            for (Map<String, Object> row : stack.rows("SELECT outbox_id FROM outbox WHERE channel = '" + channel + "'")) {
                rows.add((String) row.get("outbox_id"));
            }
            List<String> delivered = stack.simulator().delivered(channel).stream().map(ChannelSimulator.Delivery::idempotencyKey).toList();
            assertThat(delivered).as("each %s row reached its channel once", channel).doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(rows);
        }
        assertThat(stack.count("SELECT count(DISTINCT load_id) FROM outbox WHERE channel = 'slack'")).as("answers posted to Slack")
                .isEqualTo(answered.size());
        assertThat(stack.count("SELECT count(*) FROM held_load")).as("held loads").isZero();
        assertThat(stack.count("SELECT count(*) FROM load_queue_dead")).as("parked messages").isZero();
        assertThat(stack.count("SELECT count(*) FROM ops_alert")).as("ops alerts").isZero();
    }
}
