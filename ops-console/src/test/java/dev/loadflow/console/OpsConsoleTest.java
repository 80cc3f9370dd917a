package dev.loadflow.console;

import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.action.Action;
import dev.loadflow.service.testing.TestCallers;
import dev.loadflow.store.eventlog.PgEventStore;
import dev.loadflow.store.pg.PgWakeups;
import dev.loadflow.store.queue.HeldLoad;
import dev.loadflow.store.queue.PgHeldLoads;
import dev.loadflow.store.timer.PgTimerStore;
import dev.loadflow.store.timer.Timer;
import dev.loadflow.model.id.AskId;
import dev.loadflow.model.id.TimerId;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static dev.loadflow.testing.Fixtures.decision;
import static dev.loadflow.testing.Fixtures.etaAsk;
import static dev.loadflow.testing.Fixtures.newLoadId;
import static dev.loadflow.testing.Fixtures.outboxRows;
import static dev.loadflow.testing.Fixtures.ping;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.containsString;

/**
 * The console as a browser or {@code curl} meets it: the load page tells the story from the
 * database (read as {@code loadflow_reader}), changes reach the admin APIs with the caller's own
 * credential and nothing else does, and bad input gets a clear page.
 */
@QuarkusTest
@WithTestResource(ConsoleTestResource.class)
class OpsConsoleTest {

    private static final Instant T0 = Instant.parse("2026-11-30T07:00:00Z");
    private static final String HTML = "text/html";
    /** The cookies' names as shipped: this host only, HTTPS only. */
    private static final String SESSION_COOKIE = "__Host-loadflow_session";
    private static final String CSRF_COOKIE = "__Host-loadflow_csrf";
    private static final String BREAK_GLASS = "console-break-glass";
    private static Vertx vertx;
    private static Pool owner;

    @Inject
    Pool consolePool;

    @Inject
    Clock clock;

    /** A form's CSRF token as a browser holds it: the hidden field of a page with a form, and its cookie. */
    private record Csrf(String field, String cookie) {

        /** A form post carrying this token, from the browser signed in as {@code session}, with that page's session field. */
        RequestSpecification post(Session session, String sessionField) {
            return given().accept(HTML).redirects().follow(false).cookies(session.cookies()).cookie(CSRF_COOKIE, cookie)
                    .formParam("csrf-token", field).formParam("sign-in-csrf", sessionField);
        }

        /** The token of the page at {@code path} as {@code token}'s holder opens it (none for the sign-in page). */
        static Csrf of(String token, String path) {
            var request = given().accept(HTML);
            var page = (token == null ? request : request.header("Authorization", "Bearer " + token)).get(path)
                    .then().statusCode(200).extract();
            Matcher field = Pattern.compile("name=\"csrf-token\" value=\"([^\"]+)\"").matcher(page.body().asString());
            assertThat(field.find()).as("a CSRF field on " + path).isTrue();
            assertThat(page.cookie(CSRF_COOKIE)).as("the CSRF cookie of " + path).isNotBlank();
            return new Csrf(field.group(1), page.cookie(CSRF_COOKIE));
        }

        /** A form post carrying this token, as {@code token}'s holder (or nobody). */
        RequestSpecification post(String token) {
            var request = given().accept(HTML).redirects().follow(false).cookie(CSRF_COOKIE, cookie).formParam("csrf-token", field);
            return token == null ? request : request.header("Authorization", "Bearer " + token);
        }
    }

    /** A browser's session: the cookies the sign-in page set. */
    private record Session(Map<String, String> cookies) {

        static Session signIn(String credential) {
            Csrf csrf = Csrf.of(null, "/sign-in");
            var answer = csrf.post(null).formParam("token", credential).formParam("next", "/held").post("/sign-in")
                    .then().statusCode(303).extract();
            Map<String, String> cookies = new java.util.TreeMap<>(answer.cookies());
            cookies.keySet().removeIf(name -> !name.startsWith(SESSION_COOKIE));
            return new Session(cookies);
        }

        /** The page at {@code path} as this browser opens it: its CSRF token and its session field. */
        Map.Entry<Csrf, String> form(String path) {
            var page = given().accept(HTML).cookies(cookies).get(path).then().statusCode(200).extract();
            Matcher field = Pattern.compile("name=\"csrf-token\" value=\"([^\"]+)\"").matcher(page.body().asString());
            Matcher session = Pattern.compile("name=\"sign-in-csrf\" value=\"([^\"]+)\"").matcher(page.body().asString());
            assertThat(field.find()).as("a CSRF field on " + path).isTrue();
            assertThat(session.find()).as("a session field on " + path).isTrue();
            return Map.entry(new Csrf(field.group(1), page.cookie(CSRF_COOKIE)), session.group(1));
        }
    }

    @Inject
    dev.loadflow.console.web.SessionKey sessionKey;

    @BeforeEach
    void resetAdminApis() {
        ConsoleTestResource.admin().resetAll();
        if (owner == null) {
            vertx = Vertx.vertx();
            owner = ConsoleTestResource.database().pool(vertx, 2);
        }
    }

    @AfterAll
    static void close() {
        if (owner != null) {
            owner.close();
            vertx.close();
        }
    }

    /** A load with a high-risk ping, the decision (an SMS, dispatched, and a timer) and the timer scheduled. */
    private String storyLoad() {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", T0).withTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        List<Action> actions = etaAsk(ping, T0);
        new PgEventStore(owner, clock, new PgWakeups(owner)).append(load, List.of(ping, decision(ping, T0, actions)), 0,
                outboxRows(load, actions, T0, ping.eventId()));
        new PgTimerStore(owner, clock, Duration.ofSeconds(30), new PgWakeups(owner))
                .schedule(Timer.schedule(TimerId.of(load, AskId.of("eta_request", "ping_0700"), 1), T0.plusSeconds(1800), "c-1"));
        return load;
    }

    /** The outbox row {@code outboxId} died at {@code at}, refused for good after one attempt. */
    private static void died(String outboxId, Instant at) {
        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("""
                UPDATE outbox SET status = 'dead', dead_at = $2, attempts = 1, last_failure = 'permanent: 400'
                WHERE outbox_id = $1""").execute(io.vertx.sqlclient.Tuple.of(outboxId, dev.loadflow.store.pg.Pg.at(at))));
    }

    private String heldLoad() {
        String load = storyLoad();
        new PgHeldLoads(owner, clock).hold(HeldLoad.held(load, "sms_0715", "InboundSms", "unreadable: bad JSON", T0));
        return load;
    }

    private static ExtractableResponse<Response> page(String token, String path) {
        return given().header("Authorization", "Bearer " + token).accept(HTML).redirects().follow(false)
                .get(path).then().extract();
    }

    /** The overview's counts, by their id, as the page shows them. */
    private static Map<String, Long> counts(String html) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        Matcher m = Pattern.compile("id=\"count-(\\w+)\"[^>]*>\\s*(?:<a href=\"[^\"]*\">)?<span class=\"value\">(\\d+)</span>").matcher(html);
        while (m.find()) {
            counts.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return counts;
    }

    /** The total a chart's description gives for one of its lines. */
    private static long chartTotal(String html, String chart, String line) {
        Matcher m = Pattern.compile("<desc id=\"" + chart + "-desc\">[^<]*" + line + ": ([0-9,]+) in all").matcher(html);
        return m.find() ? Long.parseLong(m.group(1).replace(",", "")) : 0;
    }

    @Test
    void theOverviewCountsWhatNeedsAnOperatorLinksEachToItsListAndChartsTheLastHours() {
        Instant now = clock.instant();
        assertThat(now).as("the fixtures' rows are due and their timers late").isAfter(T0.plus(Duration.ofHours(1)));
        String before = page(TestCallers.viewer(), "/").body().asString();
        Map<String, Long> was = counts(before);
        assertThat(was.keySet()).containsExactlyInAnyOrder("held", "dead", "ambiguous", "alerts", "backlog", "queue", "timers");

        heldLoad();
        String dead = storyLoad();
        String deadSms = dead + "/ask:eta_request:ping_0700/1/send_sms";
        died(deadSms, now.minus(Duration.ofHours(1)));
        new dev.loadflow.store.alert.PgOpsAlerts(owner).raise(dead, deadSms, "send_sms", "dead", "the SMS died", now);
        String unsure = storyLoad();
        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("""
                UPDATE outbox SET status = 'ambiguous', ambiguous_at = $2, unsure_since = $2 WHERE outbox_id = $1""")
                .execute(io.vertx.sqlclient.Tuple.of(unsure + "/ask:eta_request:ping_0700/1/send_sms", dev.loadflow.store.pg.Pg.at(now))));

        String after = page(TestCallers.viewer(), "/").body().asString();
        Map<String, Long> is = counts(after);

        assertThat(is.get("held") - was.get("held")).as("held loads").isEqualTo(1);
        assertThat(is.get("dead") - was.get("dead")).as("dead rows in the last 24 h").isEqualTo(1);
        assertThat(is.get("alerts") - was.get("alerts")).as("open ops alerts").isEqualTo(1);
        assertThat(is.get("ambiguous") - was.get("ambiguous")).as("ambiguous sends").isEqualTo(1);
        // each story made an SMS and a set_timer row due at T0: the held load's two, and the set_timer rows of the others
        assertThat(is.get("backlog") - was.get("backlog")).as("outbox rows due").isEqualTo(4);
        assertThat(is.get("timers") - was.get("timers")).as("timers past their time").isEqualTo(3);
        assertThat(after).contains("<li class=\"count attention\" id=\"count-held\">")
                .contains("<a href=\"/held\">").contains("<a href=\"/ambiguous\">").contains("<a href=\"/alerts\">")
                .containsPattern("<a href=\"/dead\\?since=[0-9T:%A-]+Z\">")
                .contains("<meta http-equiv=\"refresh\" content=\"30\">");
        assertThat(chartTotal(after, "inbound", "from sources") - chartTotal(before, "inbound", "from sources"))
                .as("the three pings, logged now, in the inbound chart").isEqualTo(3);
        assertThat(chartTotal(after, "dead", "dead")).as("the row that died an hour ago, in the dead rows chart").isEqualTo(1);
        assertThat(after).contains("role=\"img\" aria-labelledby=\"inbound-title inbound-desc\"")
                .contains("<title id=\"lateness-title\">Timer lateness");
    }

    @Test
    void theOverviewsBacklogTimersAndQueueCountsOpenWhatWaitsOldestFirst() {
        String load = storyLoad();
        String sms = load + "/ask:eta_request:ping_0700/1/send_sms";
        Instant longAgo = T0.minus(Duration.ofDays(300));
        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("""
                UPDATE outbox SET available_at = $2, attempts = 2, last_failure = 'retryable: 503 from +15550100'
                WHERE outbox_id = $1""").execute(io.vertx.sqlclient.Tuple.of(sms, dev.loadflow.store.pg.Pg.at(longAgo))));
        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("UPDATE timers SET fire_at = $2 WHERE load_id = $1")
                .execute(io.vertx.sqlclient.Tuple.of(load, dev.loadflow.store.pg.Pg.at(longAgo))));
        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("""
                WITH queued AS (INSERT INTO load_queue (load_id, message_id, body, enqueued_at)
                                VALUES ($1, 'sms_0715', '{}', $2), ($1, 'sms_0716', '{}', $2) RETURNING load_id)
                INSERT INTO load_queue_group (load_id, visible_at) SELECT DISTINCT load_id, $2 FROM queued""")
                .execute(io.vertx.sqlclient.Tuple.of(load, dev.loadflow.store.pg.Pg.at(longAgo))));

        String overview = page(TestCallers.viewer(), "/").body().asString();
        String waiting = page(TestCallers.viewer(), "/waiting").body().asString();
        String operators = page(TestCallers.operator(), "/waiting").body().asString();

        assertThat(overview).contains("<a href=\"/waiting#backlog\">").contains("<a href=\"/waiting#timers\">")
                .contains("<a href=\"/waiting#queue\">");
        assertThat(firstRow(waiting, "due-row")).as("the longest due first").startsWith("<td><code>" + sms + "</code>");
        assertThat(firstRow(waiting, "late-timer")).as("the latest timer first")
                .startsWith("<td><code>tmr:" + load + ":ask:eta_request:ping_0700:1</code>");
        assertThat(firstRow(waiting, "queued-load")).as("the load waiting longest first, with its two messages")
                .startsWith("<td><a href=\"/loads/" + load + "\">" + load + "</a></td><td>2</td>");
        assertThat(waiting).as("a viewer reads no number").contains("retryable: 503 from +1***00").doesNotContain("+15550100");
        assertThat(operators).contains("retryable: 503 from +15550100");
    }

    /** The cells of the first row of class {@code rowClass} on a page. */
    private static String firstRow(String html, String rowClass) {
        int start = html.indexOf("<tr class=\"" + rowClass + "\">");
        assertThat(start).as("a row of class " + rowClass).isNotNegative();
        return html.substring(start + ("<tr class=\"" + rowClass + "\">").length());
    }

    /** A load assigned to {@code client} and {@code driver}, with its assignment's decision. */
    private String assignedLoad(String client, String driver) {
        String load = newLoadId();
        InboundEvent assigned = new InboundEvent("assign", load, T0, T0, "c-assign", null,
                new dev.loadflow.model.event.EventPayload.LoadAssigned(client, driver, "dispatched"));
        new PgEventStore(owner, clock, new PgWakeups(owner)).append(load, List.of(assigned, decision(assigned, T0, List.of())), 0, List.of());
        return load;
    }

    private static List<String> listed(String html) {
        List<String> loads = new java.util.ArrayList<>();
        Matcher m = Pattern.compile("<tr class=\"load\" data-load=\"([^\"]+)\">").matcher(html);
        while (m.find()) {
            loads.add(m.group(1));
        }
        return loads;
    }

    @Test
    void loadsAreFoundByClientDriverAndWhatWaitsOnThemEachFilterNarrowingTheOthers() {
        String client = "client-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String calm = assignedLoad(client, "+15550141");
        String held = assignedLoad(client, "+15550142");
        new PgHeldLoads(owner, clock).hold(HeldLoad.held(held, "sms_0715", "InboundSms", "unreadable: bad JSON", T0));
        String other = assignedLoad("another-" + client, "+15550142");
        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("INSERT INTO load_stage (load_id, stage, outbox_id, updated_at) VALUES ($1, 'in_transit', 'x', $2)")
                .execute(io.vertx.sqlclient.Tuple.of(held, dev.loadflow.store.pg.Pg.at(T0))));
        String rareStage = "held-at-" + client;
        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("INSERT INTO load_stage (load_id, stage, outbox_id, updated_at) VALUES ($1, $2, 'x', $3)")
                .execute(io.vertx.sqlclient.Tuple.of(other, rareStage, dev.loadflow.store.pg.Pg.at(T0))));
        String operator = TestCallers.operator();

        String byClient = page(operator, "/loads?client=" + client + "&active=").body().asString();
        String heldOfClient = page(operator, "/loads?client=" + client + "&held=on&active=").body().asString();
        String byDriver = given().header("Authorization", "Bearer " + operator).accept(HTML).queryParam("driver", "+15550142")
                .queryParam("active", "").get("/loads").then().statusCode(200).extract().body().asString();
        String recent = page(operator, "/loads").body().asString();
        String inTransit = page(operator, "/loads?client=" + client + "&stage=in_transit&active=").body().asString();
        String dispatched = page(operator, "/loads?client=" + client + "&stage=dispatched&active=").body().asString();

        assertThat(listed(byClient)).as("the client's loads, by load id").containsExactlyElementsOf(
                java.util.stream.Stream.of(calm, held).sorted().toList());
        assertThat(byClient).contains("+15550141").contains("dispatched").contains("<a href=\"/loads/" + calm + "\">");
        assertThat(listed(heldOfClient)).containsExactly(held);
        assertThat(listed(inTransit)).as("the stage its update_stage set").containsExactly(held);
        assertThat(listed(dispatched)).as("the assignment's stage, never changed").containsExactly(calm);
        assertThat(inTransit).contains("<td>in_transit</td>");
        assertThat(listed(page(operator, "/loads?stage=" + rareStage + "&active=").body().asString()))
                .as("the stage alone").containsExactly(other);
        assertThat(listed(byDriver)).as("every load the number was assigned to").contains(held, other).doesNotContain(calm);
        assertThat(listed(recent)).as("without a filter: the loads active in the last 24 hours").contains(calm, held, other);
        assertThat(recent).contains("<option value=\"24\" selected>");

        String viewers = page(TestCallers.viewer(), "/loads?client=" + client + "&active=").body().asString();
        assertThat(viewers).contains(calm).doesNotContain("+15550141").contains("+1***41").doesNotContain("id=\"f-driver\"");
        assertThat(given().header("Authorization", "Bearer " + TestCallers.viewer()).accept(HTML).queryParam("driver", "+15550142")
                .get("/loads").statusCode()).as("a viewer cannot search by number").isEqualTo(403);
        assertThat(page(operator, "/loads?active=soon").statusCode()).isEqualTo(400);
    }

    @Test
    void theLoadPageTellsTheStoryInOrderWithEachDecisionsRowsAndTheTimers() {
        String load = storyLoad();

        String html = page(TestCallers.operator(), "/loads/" + load).body().asString();

        assertThat(html).containsSubsequence("Timers", "tmr:" + load + ":ask:eta_request:ping_0700:1",
                "data-seq=\"1\" data-type=\"LocationPing\"", "data-action=\"send_sms\"",
                "id=\"raw-log\"", "data-seq=\"1\" data-type=\"LocationPing\"", "data-seq=\"2\" data-type=\"DecisionRecorded\"");
        assertThat(html).as("the story: the ping with its decision and the rows it made, at +0:00, the instant on hover")
                .containsPattern("<li class=\"step event\" data-seq=\"1\" data-type=\"LocationPing\"[^>]*>\\s*<time datetime=\"[^\"]+\" title=\"[^\"]+\">\\+0:00</time>")
                .containsSubsequence("id=\"story\"", "→ test decision", "data-action=\"send_sms\"", "id=\"raw-log\"")
                .containsSubsequence("Open asks and timers", "id=\"timers\"", "id=\"story\"");
        assertThat(html).contains("risk: high").contains("test decision").contains("+15550100")
                .contains("href=\"http://traces.example/trace/4bf92f3577b34da6a3ce929d0e0e4736\"")
                .contains("data-status=\"scheduled\"").contains("decided by sop, actions: send_sms, set_timer");
    }

    @Test
    void aDecisionTheSopTookForAModelSaysWhichModelWhatItCostAndWhy() {
        String load = newLoadId();
        InboundEvent ping = ping(load, "ping_0700", T0);
        new PgEventStore(owner, clock, new PgWakeups(owner)).append(load, List.of(ping,
                dev.loadflow.model.event.DecisionRecorded.decided(ping, T0, List.of(), false, "high-risk ping on an unassigned load",
                        List.of(), dev.loadflow.model.event.Provenance.fallback("dispatcher-7b", "0123456789ab", 840, 70, 20_004,
                                "the model did not answer in time"))), 0, List.of());

        String html = page(TestCallers.viewer(), "/loads/" + load).body().asString();

        assertThat(html).contains("decided by sop-fallback (model dispatcher-7b, prompt 0123456789ab, 910 tokens, 20004 ms; "
                + "the model did not answer in time)");
    }

    @Test
    void aViewerSeesMaskedPhonesAndNoChangeButtons() {
        String load = heldLoad();

        String loadPage = page(TestCallers.viewer(), "/loads/" + load).body().asString();
        String heldPage = page(TestCallers.viewer(), "/held").body().asString();

        assertThat(loadPage).contains("+1***00").doesNotContain("+15550100").contains("Held").doesNotContain("<button type=\"submit\" class=\"skip\"");
        assertThat(heldPage).contains(load).doesNotContain("class=\"skip\"").doesNotContain("class=\"retry\"");
        assertThat(page(TestCallers.operator(), "/held").body().asString()).contains("class=\"skip\"").contains("class=\"retry\"");
    }

    @Test
    void anOperatorsSkipGoesToTheWorkerWithTheOperatorsOwnCredential() {
        String load = heldLoad();
        String operator = TestCallers.operator();
        ConsoleTestResource.admin().stubFor(post(urlEqualTo("/admin/loads/" + load + "/skip"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json").withBody("{\"skipped\": true}")));

        var answer = Csrf.of(operator, "/held").post(operator)
                .formParam("reason", "driver's gateway sent garbage").formParam("from", "load")
                .post("/held/" + load + "/skip").then().extract();

        assertThat(answer.statusCode()).isEqualTo(303);
        assertThat(answer.header("Location")).endsWith("/loads/" + load + "?done=skipped");
        ConsoleTestResource.admin().verify(1, postRequestedFor(urlEqualTo("/admin/loads/" + load + "/skip"))
                .withHeader("Authorization", equalTo("Bearer " + operator))
                .withRequestBody(equalToJson("{\"reason\": \"driver's gateway sent garbage\"}")));
    }

    @Test
    void aClientsSopPageShowsItsVersionsWithTheirDiffReadThroughTheConsolesView() {
        String client = "client-" + newLoadId().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        var sops = new dev.loadflow.store.sop.PgSopVersions(owner, dev.loadflow.store.pg.Wakeups.NONE);
        var audit = new dev.loadflow.store.audit.AuditRecord("ops@example", "load-worker", "sop.put", client, "{}");
        sops.add(client, new dev.loadflow.model.policy.SopRules(Duration.ofMinutes(30), 2, "ETA for {loadId}?", "#hero-desk"),
                "the first SOP", audit, T0);
        sops.add(client, new dev.loadflow.model.policy.SopRules(Duration.ofMinutes(20), 2, "ETA for {loadId}?", "#hero-desk"),
                "twenty minutes", audit, T0.plusSeconds(60));

        String list = page(TestCallers.viewer(), "/sops").body().asString();
        String one = page(TestCallers.viewer(), "/sops/" + client).body().asString();

        assertThat(list).contains("data-client=\"" + client + "\"").contains("twenty minutes");
        assertThat(one).contains("id=\"current-version\">2<").contains("the first SOP")
                .contains("<span class=\"diff-remove\">-    &quot;wait&quot; : &quot;PT30M&quot;,</span>")
                .contains("<span class=\"diff-add\">+    &quot;wait&quot; : &quot;PT20M&quot;,</span>")
                .as("a viewer gets no edit form").doesNotContain("id=\"sop-edit\"");
        assertThat(page(TestCallers.operator(), "/sops/" + client).body().asString()).contains("id=\"sop-edit\"");
    }

    @Test
    void anSopSavedFromTheConsoleGoesToTheWorkerWithTheOperatorsCredentialAndReason() {
        String operator = TestCallers.operator();
        ConsoleTestResource.admin().stubFor(com.github.tomakehurst.wiremock.client.WireMock.put(urlEqualTo("/admin/sops/client-z"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"clientId\": \"client-z\", \"version\": 4, \"auditId\": 17}")));
        String rules = "{\"attempts\": [{\"wait\": \"PT30M\", \"text\": \"ETA?\"}], \"heroSlackChannel\": \"#hero\"}";

        var answer = Csrf.of(operator, "/sops/client-z").post(operator).formParam("rules", rules).formParam("reason", "weekly review")
                .post("/sops/client-z").then().extract();
        var notJson = Csrf.of(operator, "/sops/client-z").post(operator).formParam("rules", "{\"attempts\": [").formParam("reason", "x")
                .post("/sops/client-z").then().extract();

        assertThat(answer.statusCode()).isEqualTo(303);
        assertThat(answer.header("Location")).endsWith("/sops/client-z?done=saved&version=4");
        ConsoleTestResource.admin().verify(1, com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor(urlEqualTo("/admin/sops/client-z"))
                .withHeader("Authorization", equalTo("Bearer " + operator))
                .withRequestBody(equalToJson("{\"rules\": " + rules + ", \"reason\": \"weekly review\"}")));
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(notJson.body().asString()).contains("The rules are not JSON");
    }

    @Test
    void theWorkersRefusalIsShownWithItsStatusAndWords() {
        String load = heldLoad();
        ConsoleTestResource.admin().stubFor(post(urlEqualTo("/admin/loads/" + load + "/retry")).willReturn(aResponse()
                .withStatus(409).withHeader("Content-Type", "application/problem+json")
                .withBody("{\"status\": 409, \"detail\": \"load " + load + " is being skipped\"}")));

        var answer = Csrf.of(TestCallers.operator(), "/held").post(TestCallers.operator())
                .post("/held/" + load + "/retry").then().extract();

        assertThat(answer.statusCode()).isEqualTo(409);
        assertThat(answer.body().asString()).contains("load-worker refused the change").contains("is being skipped");
    }

    @Test
    void aFormPostedWithoutACredentialOrByAViewerChangesNothing() {
        String load = heldLoad();

        Csrf csrf = Csrf.of(TestCallers.viewer(), "/held");
        var forged = csrf.post(null).formParam("reason", "forged").post("/held/" + load + "/skip").then().extract();
        var scripted = given().redirects().follow(false).cookie(CSRF_COOKIE, csrf.cookie())
                .formParam("csrf-token", csrf.field()).formParam("reason", "forged").post("/held/" + load + "/skip").then().extract();
        var viewer = csrf.post(TestCallers.viewer()).formParam("reason", "not mine to skip").post("/held/" + load + "/skip")
                .then().extract();
        var noToken = given().header("Authorization", "Bearer " + TestCallers.operator()).accept(HTML).redirects().follow(false)
                .formParam("reason", "a form from another page").post("/held/" + load + "/skip").then().extract();
        var otherToken = given().header("Authorization", "Bearer " + TestCallers.operator()).accept(HTML).redirects().follow(false)
                .cookie(CSRF_COOKIE, csrf.cookie()).formParam("csrf-token", "a-token-the-attacker-made-up")
                .formParam("reason", "a form from another page").post("/held/" + load + "/skip").then().extract();

        assertThat(forged.statusCode()).isEqualTo(303);
        assertThat(forged.header("Location")).contains("/sign-in?next=%2F");
        assertThat(scripted.statusCode()).isEqualTo(401);
        assertThat(scripted.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(viewer.statusCode()).isEqualTo(403);
        assertThat(noToken.statusCode()).as("an operator's form without the CSRF token").isEqualTo(400);
        assertThat(otherToken.statusCode()).as("an operator's form whose token is not its cookie's").isEqualTo(400);
        ConsoleTestResource.admin().verify(0, anyRequestedFor(anyUrl()));
        assertThat(ConsoleTestResource.database().count("SELECT count(*) FROM held_load WHERE load_id = '" + load + "'")).isOne();
    }

    /**
     * A signed-in browser's form goes through only from the console's own page in its own session:
     * a session field of another session (a token planted or lifted), a post from another site or
     * port, changes nothing.
     */
    @Test
    void aFormOfAnotherSessionOrFromAnotherOriginChangesNothing() {
        String load = heldLoad();
        Session otto = Session.signIn(TestCallers.operator());
        Session olga = Session.signIn(TestCallers.jwt("olga", "loadflow-operator"));
        var ottos = otto.form("/held");
        var olgas = olga.form("/held");
        ConsoleTestResource.admin().stubFor(post(urlEqualTo("/admin/loads/" + load + "/skip"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json").withBody("{\"skipped\": true}")));

        var otherSession = ottos.getKey().post(otto, olgas.getValue()).formParam("reason", "planted")
                .post("/held/" + load + "/skip").then().extract();
        var sibling = ottos.getKey().post(otto, ottos.getValue()).header("Origin", "https://evil.freight.example")
                .formParam("reason", "from a sibling host").post("/held/" + load + "/skip").then().extract();
        var sameSite = ottos.getKey().post(otto, ottos.getValue()).header("Sec-Fetch-Site", "same-site")
                .formParam("reason", "from another port").post("/held/" + load + "/skip").then().extract();

        assertThat(otherSession.statusCode()).isEqualTo(400);
        assertThat(otherSession.body().asString()).contains("not opened in your session");
        assertThat(sibling.statusCode()).isEqualTo(403);
        assertThat(sameSite.statusCode()).isEqualTo(403);
        ConsoleTestResource.admin().verify(0, anyRequestedFor(anyUrl()));

        // what a browser sends with the console's own form under Referrer-Policy: no-referrer
        var own = ottos.getKey().post(otto, ottos.getValue()).header("Origin", "null").header("Sec-Fetch-Site", "same-origin").formParam("reason", "driver's gateway sent garbage")
                .post("/held/" + load + "/skip").then().extract();
        assertThat(own.statusCode()).isEqualTo(303);
        ConsoleTestResource.admin().verify(1, postRequestedFor(urlEqualTo("/admin/loads/" + load + "/skip")));
    }

    /** The break-glass token never expires; a console session signed in with it does, and its end cannot be moved. */
    @Test
    void aBreakGlassSessionEndsAndItsEndCannotBeForged() {
        Session session = Session.signIn(BREAK_GLASS);
        String until = SESSION_COOKIE + "_until";
        assertThat(session.cookies()).containsKeys(SESSION_COOKIE, until);
        given().accept(HTML).cookies(session.cookies()).get("/held").then().statusCode(200);

        String ended = sessionKey.until(BREAK_GLASS, clock.instant().minusSeconds(1));
        long farAhead = clock.instant().plus(Duration.ofDays(365)).getEpochSecond();
        String forged = farAhead + session.cookies().get(until).substring(session.cookies().get(until).indexOf('.'));
        for (String cookie : java.util.Arrays.asList(ended, forged, null)) {
            var request = given().accept(HTML).redirects().follow(false).cookie(SESSION_COOKIE, BREAK_GLASS);
            var answer = (cookie == null ? request : request.cookie(until, cookie)).get("/held").then().extract();
            assertThat(answer.statusCode()).as("until " + cookie).isEqualTo(303);
            assertThat(answer.header("Location")).contains("/sign-in?next=%2Fheld");
        }
        assertThat(given().header("Authorization", "Bearer " + BREAK_GLASS).accept(HTML).get("/held").statusCode())
                .as("the token itself, as the API's callers send it").isEqualTo(200);
    }

    @Test
    void everyPageTellsTheBrowserToLoadNothingFromElsewhereAndToBeFramedByNobody() {
        for (String path : List.of("/sign-in", "/held")) {
            var page = given().header("Authorization", "Bearer " + TestCallers.viewer()).accept(HTML).get(path).then().extract();

            assertThat(page.header("Content-Security-Policy")).as(path)
                    .contains("default-src 'self'").contains("frame-ancestors 'none'");
            assertThat(page.header("X-Frame-Options")).as(path).isEqualTo("DENY");
            assertThat(page.header("X-Content-Type-Options")).as(path).isEqualTo("nosniff");
            assertThat(page.header("Referrer-Policy")).as(path).isEqualTo("no-referrer");
            assertThat(page.header("Strict-Transport-Security")).as("plain HTTP: meaningless, not sent").isNull();
            assertThat(page.body().asString()).as("no inline style or script for the policy to refuse")
                    .doesNotContain("<style").doesNotContain("<script").contains("href=\"/console.css\"");
        }
        given().get("/console.css").then().statusCode(200).contentType(containsString("text/css"));
    }

    @Test
    void aBrowserWithoutACredentialIsSentToSignInAndBack() {
        var answer = given().accept(HTML).redirects().follow(false).get("/loads/481207").then().extract();

        assertThat(answer.statusCode()).isEqualTo(303);
        assertThat(answer.header("Location")).endsWith("/sign-in?next=%2Floads%2F481207");
    }

    @Test
    void signingInKeepsTheCredentialInAStrictHttpOnlyCookieAndABadOneIsRefused() {
        Csrf csrf = Csrf.of(null, "/sign-in");
        var signedIn = csrf.post(null).formParam("token", TestCallers.operator())
                .formParam("next", "/held").post("/sign-in").then().extract();
        var offSite = csrf.post(null).formParam("token", "console-break-glass")
                .formParam("next", "//evil.example/").post("/sign-in").then().extract();
        var refused = csrf.post(null).formParam("token", TestCallers.signWithAnotherKey(
                TestCallers.claims("mallory").groups("loadflow-operator"))).post("/sign-in").then().extract();
        var forgedSignIn = given().accept(HTML).redirects().follow(false).formParam("token", "console-break-glass")
                .post("/sign-in").then().extract();

        assertThat(signedIn.statusCode()).isEqualTo(303);
        assertThat(signedIn.header("Location")).endsWith("/held");
        assertThat(signedIn.headers().getValues("Set-Cookie")).filteredOn(c -> c.startsWith(SESSION_COOKIE + "="))
                .singleElement().asString().contains("HttpOnly").containsIgnoringCase("SameSite=Strict")
                .contains("Secure").contains("Path=/").doesNotContainIgnoringCase("Domain=");
        String held = given().cookie(SESSION_COOKIE, signedIn.cookie(SESSION_COOKIE)).accept(HTML).get("/held")
                .then().statusCode(200).extract().body().asString();
        assertThat(held).contains("Held loads").contains("otto · operator");
        assertThat(offSite.header("Location")).as("never sent to another site").doesNotContain("evil.example");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body().asString()).contains("was not accepted");
        assertThat(forgedSignIn.statusCode()).as("a sign-in form without the CSRF token (login CSRF)").isEqualTo(400);
        assertThat(forgedSignIn.headers().getValues("Set-Cookie")).as("no session was made")
                .noneMatch(c -> c.startsWith(SESSION_COOKIE + "="));
    }

    @Test
    void badInputGetsAClearPage() {
        String operator = TestCallers.operator();

        var unknown = page(operator, "/loads/no-such-load-481207");
        var malformed = page(operator, "/loads/bad%20id!");
        var search = given().header("Authorization", "Bearer " + operator).accept(HTML).queryParam("loadId", "<script>")
                .get("/loads").then().extract();
        var actionType = page(operator, "/dead?actionType=send_fax");
        var since = page(operator, "/alerts?since=yesterday");
        var farPage = page(operator, "/dead?page=2147483647");
        var pastAnInt = page(operator, "/dead?page=99999999999");
        var notANumber = page(operator, "/alerts?page=two");
        var noSuchPage = page(operator, "/no-such-page");
        var signOutAsALink = page(operator, "/sign-out");

        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body().asString()).contains("Nothing is known of load no-such-load-481207");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(search.statusCode()).isEqualTo(400);
        assertThat(search.body().asString()).contains("&lt;script&gt;").doesNotContain("<script>");
        assertThat(actionType.statusCode()).isEqualTo(400);
        assertThat(actionType.body().asString()).contains("send_fax").contains("send_sms");
        assertThat(since.statusCode()).isEqualTo(400);
        assertThat(farPage.statusCode()).isEqualTo(400);
        assertThat(farPage.body().asString()).contains("page counts from 0 to 100000");
        assertThat(pastAnInt.statusCode()).as("a page number past an int is a bad request, not a missing page").isEqualTo(400);
        assertThat(notANumber.statusCode()).isEqualTo(400);
        assertThat(notANumber.body().asString()).contains("page numbers and counts are whole numbers");
        assertThat(noSuchPage.statusCode()).isEqualTo(404);
        assertThat(noSuchPage.body().asString()).contains("Nothing is served at this address");
        assertThat(signOutAsALink.statusCode()).as("a form's address opened as a link").isEqualTo(405);
        assertThat(signOutAsALink.body().asString()).contains("not a link");
    }

    /**
     * An ambiguous send is listed (the number masked for a viewer, who gets no buttons); an
     * operator's finding goes to the dispatcher's admin API with the operator's own credential.
     */
    @Test
    void anAmbiguousSendIsListedAndAnOperatorsFindingGoesToTheDispatcher() {
        String load = storyLoad();
        String sms = load + "/ask:eta_request:ping_0700/1/send_sms";
        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("""
                UPDATE outbox SET status = 'ambiguous', ambiguous_at = $2, unsure_since = $2, attempts = 1,
                                  last_failure = 'no answer from Twilio within PT5S'
                WHERE outbox_id = $1""").execute(io.vertx.sqlclient.Tuple.of(sms, dev.loadflow.store.pg.Pg.at(T0))));
        // the outbox id is one path segment, its slashes encoded
        String resolvePath = "/admin/outbox/" + sms.replace("/", "%2F") + "/resolve";
        ConsoleTestResource.admin().stubFor(post(urlPathEqualTo(resolvePath))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"outboxId\": \"" + sms + "\", \"as\": \"delivered\", \"auditId\": 21}")));
        String operator = TestCallers.operator();

        String viewed = page(TestCallers.viewer(), "/ambiguous").body().asString();
        assertThat(viewed).contains(sms).contains("+1***00").doesNotContain("+15550100").doesNotContain("Mark delivered");
        assertThat(page(operator, "/ambiguous").body().asString()).contains("Mark delivered").contains("Send again");

        Csrf csrf = Csrf.of(operator, "/ambiguous");
        var noReason = csrf.post(operator).formParam("outboxId", sms).formParam("as", "delivered").formParam("reason", " ")
                .post("/ambiguous/resolve").then().extract();
        var resolved = csrf.post(operator).formParam("outboxId", sms).formParam("as", "delivered")
                .formParam("reason", "SM3f in Twilio's log").post("/ambiguous/resolve").then().extract();

        assertThat(noReason.statusCode()).isEqualTo(400);
        assertThat(resolved.statusCode()).isEqualTo(303);
        assertThat(resolved.header("Location")).endsWith("/ambiguous?done=delivered");
        ConsoleTestResource.admin().verify(1, postRequestedFor(urlPathEqualTo(resolvePath))
                .withHeader("Authorization", equalTo("Bearer " + operator))
                .withRequestBody(equalToJson("{\"as\": \"delivered\", \"reason\": \"SM3f in Twilio's log\"}")));
    }

    /**
     * A dead row nobody handled offers an operator "acknowledge" (a viewer only sees it waits);
     * the acknowledgement goes to the dispatcher with the operator's credential and a reason, and
     * an acknowledged row says since when.
     */
    @Test
    void aDeadRowWaitsForAnOperatorWhoAcknowledgesItWithAReason() {
        String load = storyLoad();
        String sms = load + "/ask:eta_request:ping_0700/1/send_sms";
        died(sms, T0);
        String acknowledgePath = "/admin/outbox/" + sms.replace("/", "%2F") + "/acknowledge";
        ConsoleTestResource.admin().stubFor(post(urlPathEqualTo(acknowledgePath))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"target\": \"" + sms + "\", \"acknowledged\": true, \"auditId\": 22}")));
        String operator = TestCallers.operator();

        assertThat(page(TestCallers.viewer(), "/dead?loadId=" + load).body().asString())
                .contains("waiting for an operator").doesNotContain(">Acknowledge<");
        assertThat(page(operator, "/dead?loadId=" + load).body().asString()).contains(">Acknowledge<");

        Csrf csrf = Csrf.of(operator, "/dead?loadId=" + load);
        var noReason = csrf.post(operator).formParam("outboxId", sms).formParam("reason", "")
                .post("/dead/acknowledge").then().extract();
        var acknowledged = csrf.post(operator).formParam("outboxId", sms).formParam("reason", "desk called the driver")
                .post("/dead/acknowledge").then().extract();

        assertThat(noReason.statusCode()).isEqualTo(400);
        assertThat(acknowledged.statusCode()).isEqualTo(303);
        assertThat(acknowledged.header("Location")).endsWith("/dead?done=acknowledged");
        ConsoleTestResource.admin().verify(1, postRequestedFor(urlPathEqualTo(acknowledgePath))
                .withHeader("Authorization", equalTo("Bearer " + operator))
                .withRequestBody(equalToJson("{\"reason\": \"desk called the driver\"}")));

        dev.loadflow.store.pg.Pg.await(owner.preparedQuery("UPDATE outbox SET acknowledged_at = $2 WHERE outbox_id = $1")
                .execute(io.vertx.sqlclient.Tuple.of(sms, dev.loadflow.store.pg.Pg.at(T0.plusSeconds(60)))));
        assertThat(page(operator, "/dead?loadId=" + load).body().asString())
                .as("how long ago, the instant on hover")
                .containsPattern("acknowledged <time datetime=\"2026-11-30T07:01:00Z\" title=\"2026-11-30T07:01:00Z\">\\d+ d \\d+ h ago</time>")
                .doesNotContain(">Acknowledge<");
    }

    @Test
    void aDatePickersTimeIsReadAsUtcAndTheReplayGetsTheSameInstant() {
        String load = storyLoad();
        String sms = load + "/ask:eta_request:ping_0700/1/send_sms";
        died(sms, T0);
        ConsoleTestResource.admin().stubFor(post(urlPathEqualTo("/admin/outbox/replay")).withQueryParam("dryRun", equalTo("true"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"matched\": 1, \"wouldReplay\": 1, \"stale\": 0, \"sample\": [\"" + sms + "\"]}")));
        String operator = TestCallers.operator();

        String justBefore = page(operator, "/dead?loadId=" + load + "&since=2026-11-30T06:59").body().asString();
        String justAfter = page(operator, "/dead?loadId=" + load + "&since=2026-11-30T07:01").body().asString();
        var preview = Csrf.of(operator, "/dead?loadId=" + load).post(operator).formParam("loadId", load).formParam("actionType", "")
                .formParam("since", "2026-11-30T06:59").formParam("until", "").formParam("limit", "50")
                .post("/dead/replay/preview").then().extract();

        assertThat(justBefore).as("dead at 07:00 UTC, after 06:59").contains(sms)
                .contains("<input type=\"datetime-local\" id=\"dead-since\" name=\"since\" value=\"2026-11-30T06:59\">");
        assertThat(justAfter).as("not after 07:01").doesNotContain(sms).contains("id=\"none-dead\"");
        assertThat(preview.statusCode()).isEqualTo(200);
        ConsoleTestResource.admin().verify(1, postRequestedFor(urlPathEqualTo("/admin/outbox/replay"))
                .withQueryParam("since", equalTo("2026-11-30T06:59:00Z")).withQueryParam("dryRun", equalTo("true")));
        assertThat(page(operator, "/dead?since=yesterday").statusCode()).isEqualTo(400);
    }

    @Test
    void aReplayShowsTheDryRunCountBeforeTheOperatorConfirms() {
        String operator = TestCallers.operator();
        ConsoleTestResource.admin().stubFor(post(urlPathEqualTo("/admin/outbox/replay")).withQueryParam("dryRun", equalTo("true"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"matched\": 5, \"wouldReplay\": 3, \"stale\": 2, \"sample\": [\"481207/ask:eta_request:ping_0700/1/send_sms\"]}")));
        ConsoleTestResource.admin().stubFor(post(urlPathEqualTo("/admin/outbox/replay")).withQueryParam("dryRun", equalTo("false"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"replayed\": 3, \"stale\": 2, \"auditId\": 17}")));

        Csrf csrf = Csrf.of(operator, "/dead");
        String preview = csrf.post(operator)
                .formParam("actionType", "send_sms").formParam("limit", "50").post("/dead/replay/preview")
                .then().statusCode(200).extract().body().asString();

        assertThat(preview).contains("<b id=\"matched\">5</b>").contains("<b id=\"would-replay\">3</b>").contains("<b id=\"stale\">2</b>")
                .contains("Replay 3 row(s)");
        ConsoleTestResource.admin().verify(0, postRequestedFor(urlPathEqualTo("/admin/outbox/replay"))
                .withQueryParam("dryRun", equalTo("false")));

        assertThat(preview).as("the confirmation carries the token on").contains("value=\"" + csrf.field() + "\"");
        var confirmed = csrf.post(operator)
                .formParam("actionType", "send_sms").formParam("limit", "50").post("/dead/replay").then().extract();

        assertThat(confirmed.statusCode()).isEqualTo(303);
        assertThat(confirmed.header("Location")).contains("actionType=send_sms").contains("done=replayed&count=3");
        ConsoleTestResource.admin().verify(1, postRequestedFor(urlPathEqualTo("/admin/outbox/replay"))
                .withQueryParam("dryRun", equalTo("false")).withQueryParam("limit", equalTo("50"))
                .withHeader("Authorization", equalTo("Bearer " + operator)));
    }

    @Test
    void heldLoadsAreFilteredByWhenTheyWereHeldAndSkippedTogetherAfterADryRun() {
        String early = assignedLoad("client-a", "+15550151");
        String late = assignedLoad("client-a", "+15550152");
        PgHeldLoads holds = new PgHeldLoads(owner, clock);
        holds.hold(HeldLoad.held(early, "sms_0715", "InboundSms", "unreadable: bad JSON", T0.minus(Duration.ofDays(400))));
        holds.hold(HeldLoad.held(late, "sms_0716", "InboundSms", "unreadable: bad JSON", T0.minus(Duration.ofDays(399))));
        String operator = TestCallers.operator();
        String span = "since=2025-10-26T00:00&until=2025-10-27T00:00";
        ConsoleTestResource.admin().stubFor(post(urlPathEqualTo("/admin/loads/held/repair")).withQueryParam("dryRun", equalTo("true"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"action\": \"skip\", \"matched\": 1, \"loads\": [{\"loadId\": \"" + early
                                + "\", \"messageId\": \"sms_0715\", \"messageType\": \"InboundSms\", \"reason\": \"unreadable: bad JSON\", "
                                + "\"since\": \"2025-10-26T07:00:00Z\", \"state\": \"held\", \"waiting\": 0}]}")));
        ConsoleTestResource.admin().stubFor(post(urlPathEqualTo("/admin/loads/held/repair")).withQueryParam("dryRun", equalTo("false"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"action\": \"skip\", \"done\": [{\"loadId\": \"" + early + "\", \"messageId\": \"sms_0715\", "
                                + "\"messageType\": \"InboundSms\", \"state\": \"skipped\", \"auditId\": 41}], \"refused\": []}")));

        String filtered = page(operator, "/held?" + span).body().asString();
        Csrf csrf = Csrf.of(operator, "/held?" + span);
        String preview = csrf.post(operator).formParam("since", "2025-10-26T00:00:00Z").formParam("until", "2025-10-27T00:00:00Z")
                .formParam("messageType", "").formParam("action", "skip").formParam("reason", "the gateway garbled them")
                .formParam("limit", "50").post("/held/repair/preview").then().statusCode(200).extract().body().asString();

        assertThat(filtered).as("held on 2025-10-26 UTC only").contains("data-load=\"" + early + "\"")
                .doesNotContain("data-load=\"" + late + "\"")
                .contains("<input type=\"datetime-local\" id=\"held-since\" name=\"since\" value=\"2025-10-26T00:00\">");
        assertThat(preview).contains("<b id=\"matched\">1</b>").contains("<b id=\"would-change\">1</b>")
                .contains("the gateway garbled them").contains("Skip 1 load(s)").contains("value=\"" + csrf.field() + "\"");
        ConsoleTestResource.admin().verify(0, postRequestedFor(urlPathEqualTo("/admin/loads/held/repair"))
                .withQueryParam("dryRun", equalTo("false")));

        var confirmed = csrf.post(operator).formParam("since", "2025-10-26T00:00:00Z").formParam("until", "2025-10-27T00:00:00Z")
                .formParam("action", "skip").formParam("reason", "the gateway garbled them").formParam("limit", "50")
                .post("/held/repair").then().extract();

        assertThat(confirmed.statusCode()).isEqualTo(303);
        assertThat(confirmed.header("Location")).contains("since=2025-10-26T00%3A00%3A00Z").contains("done=bulk-skip&count=1&refused=0");
        ConsoleTestResource.admin().verify(1, postRequestedFor(urlPathEqualTo("/admin/loads/held/repair"))
                .withQueryParam("dryRun", equalTo("false")).withQueryParam("since", equalTo("2025-10-26T00:00:00Z"))
                .withQueryParam("until", equalTo("2025-10-27T00:00:00Z")).withQueryParam("limit", equalTo("50"))
                .withHeader("Authorization", equalTo("Bearer " + operator))
                .withRequestBody(equalToJson("{\"action\": \"skip\", \"reason\": \"the gateway garbled them\"}")));
        assertThat(page(operator, java.net.URLDecoder.decode(confirmed.header("Location").replaceFirst("^https?://[^/]+", ""),
                java.nio.charset.StandardCharsets.UTF_8)).body().asString())
                .contains("Skipped the head messages of 1 load(s)");
        assertThat(csrf.post(operator).formParam("action", "skip").formParam("reason", " ").formParam("limit", "5")
                .post("/held/repair/preview").statusCode()).as("a skip needs a reason").isEqualTo(400);
        assertThat(page(operator, "/held?since=2025-10-27T00:00&until=2025-10-26T00:00").statusCode()).isEqualTo(400);
    }

    /** The console reads through its views (V38), in read-only transactions: it writes nothing, and reads no other table. */
    @Test
    void theConsolesDatabaseRoleCannotWriteNorReadWhatNoPageShows() {
        assertThatThrownBy(() -> dev.loadflow.store.pg.Pg.await(consolePool
                .query("INSERT INTO ops_alert (load_id, kind, message, raised_at) VALUES ('x', 'k', 'm', now())").execute()))
                .hasMessageContaining("permission denied for view ops_alert");
        for (String table : List.of("provider_message", "inbound_message", "load_queue_dead", "processed_event")) {
            assertThatThrownBy(() -> dev.loadflow.store.pg.Pg.await(consolePool.query("SELECT count(*) FROM " + table).execute()))
                    .as(table).hasMessageContaining("permission denied for table " + table);
        }
        assertThatThrownBy(() -> dev.loadflow.store.pg.Pg.await(consolePool.query("SELECT count(*) FROM public.outbox").execute()))
                .as("the table behind a view").hasMessageContaining("permission denied for table outbox");
        assertThatThrownBy(() -> dev.loadflow.store.pg.Pg.await(consolePool.withTransaction(c -> c
                .query("SET TRANSACTION READ WRITE").execute().compose(ignored -> c
                .query("DELETE FROM held_load").execute()))))
                .hasMessageContaining("permission denied");
    }
}
