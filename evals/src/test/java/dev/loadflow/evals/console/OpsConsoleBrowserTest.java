package dev.loadflow.evals.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.loadflow.evals.local.LocalRun;
import dev.loadflow.model.json.JsonReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.loadflow.testing.Waits.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The operator console in a real headless Chromium, against the packaged services as they
 * are deployed (separate processes, real HTTP, PostgreSQL): the ADR story's load page, a held
 * load skipped from its page, and what a viewer may not do. Needs Debian's {@code chromium}
 * and {@code chromium-driver}; {@code .ci/run} installs them and sets
 * {@code LOADFLOW_BROWSER_TESTS=required}, without which a machine lacking them skips this class.
 */
class OpsConsoleBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String HELD_LOAD = "481299";
    private static final String TARGETED_LOAD = "481298";

    /** The worker's API in this stack (the local run's ports, moved by 200). */
    private static final String WORKER_ADMIN = "http://127.0.0.1:8281";
    private static final String DISPATCHER_ADMIN = "http://127.0.0.1:8282";

    private static LocalRun stack;
    private static ChromeDriver browser;
    private static Path profile;

    @BeforeAll
    static void startTheStackAndTheBrowser() throws Exception {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!installed && "required".equals(System.getenv("LOADFLOW_BROWSER_TESTS"))) {
            throw new IllegalStateException("browser tests are required and " + CHROMIUM + " or " + CHROMEDRIVER
                    + " is missing: apt-get install chromium chromium-driver");
        }
        assumeTrue(installed, "no chromium and chromedriver here: apt-get install chromium chromium-driver");
        stack = new LocalRun(new LocalRun.Options(ROOT, 200, Duration.ofSeconds(3),
                List.of("-Dloadflow.worker.hold-recheck=PT2S")));
        stack.start();
        stack.demo();

        profile = Files.createTempDirectory("loadflow-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,2200", "--user-data-dir=" + profile);
        ChromeDriverService driver = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(driver, options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (stack != null) {
            stack.stop();
        }
    }

    @BeforeEach
    void signedOut() {
        browser.manage().deleteAllCookies();
    }

    /** Opens {@code path}, is sent to the sign-in page, pastes {@code token}, and is sent back. */
    private void signInAndOpen(String token, String path) {
        browser.get(stack.consoleUrl() + path);
        assertThat(browser.getCurrentUrl()).as("sent to sign in first").contains("/sign-in");
        browser.findElement(By.id("token")).sendKeys(token);
        browser.findElement(By.cssSelector("#sign-in button[type=submit]")).click();
        await().atMost(Duration.ofSeconds(10)).until(() -> browser.getCurrentUrl().endsWith(path));
    }

    /** The element of the page a click leads to: a click returns before the form's POST and its redirect are done. */
    private WebElement loaded(By locator) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> !browser.findElements(locator).isEmpty());
        return browser.findElement(locator);
    }

    /**
     * The page as the browser shows it, under {@code evals/target/screenshots}; with
     * {@code -Dloadflow.docs.screenshots=true} also the operations guide's picture of the same name.
     */
    private Path screenshot(String name) throws java.io.IOException {
        Path shot = ROOT.resolve("evals/target/screenshots/" + name + ".png");
        Files.createDirectories(shot.getParent());
        Files.write(shot, browser.getScreenshotAs(OutputType.BYTES));
        if (Boolean.getBoolean("loadflow.docs.screenshots")) {
            Files.copy(shot, ROOT.resolve("docs/images/" + name + ".png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return shot;
    }

    private List<WebElement> entries() {
        return browser.findElements(By.cssSelector("#timeline > li"));
    }

    @Test
    void theAdrStorysLoadPageShowsEveryEntryInOrderWithItsOutboxRowsAndTimers() throws Exception {
        JsonNode truth = JsonReader.parse(get(WORKER_ADMIN + "/loads/" + LocalRun.LOAD, stack.operator())).node();

        signInAndOpen(stack.operator(), "/loads/" + LocalRun.LOAD);

        List<String> shown = new ArrayList<>();
        for (WebElement entry : entries()) {
            shown.add(entry.getAttribute("data-seq") + " " + entry.getAttribute("data-type"));
        }
        List<String> logged = new ArrayList<>();
        truth.path("log").forEach(e -> logged.add(e.path("seq").asText() + " " + e.path("type").asText()));
        assertThat(shown).as("every entry of the log, in its order").isEqualTo(logged);
        assertThat(shown).extracting(s -> s.substring(s.indexOf(' ') + 1)).containsSubsequence(
                "LoadAssigned", "LocationPing", "DecisionRecorded", "TimerFired", "DecisionRecorded", "InboundSms", "DecisionRecorded");

        // the story: each event with its decision and its actions' deliveries; the outcomes that changed nothing fold into their rows
        List<WebElement> steps = browser.findElements(By.cssSelector("#story > li"));
        assertThat(steps).extracting(step -> step.getAttribute("data-type"))
                .containsExactly("LoadAssigned", "LocationPing", "TimerFired", "InboundSms");
        assertThat(steps.getFirst().findElement(By.tagName("time")).getText()).isEqualTo("+0:00");
        assertThat(steps.getFirst().findElement(By.tagName("time")).getAttribute("title")).matches("2026-.*Z");
        assertThat(steps.get(1).getText()).contains("→ ").contains("send_sms");
        assertThat(steps.get(3).findElements(By.cssSelector("tr.outbox-row[data-action=post_hero_slack]"))).as("the Slack post under the answer")
                .hasSize(1);
        assertThat(browser.findElement(By.id("raw-log")).getAttribute("open")).as("the raw log behind a toggle").isNull();
        List<WebElement> sms = browser.findElements(By.cssSelector("#story tr.outbox-row[data-action=send_sms]"));
        assertThat(sms).as("the first SMS and the one the timer sent").hasSizeGreaterThanOrEqualTo(2);
        assertThat(sms).allSatisfy(row -> {
            assertThat(row.getAttribute("data-status")).isEqualTo("dispatched");
            assertThat(row.findElements(By.tagName("td")).get(4).getText()).as("the provider's receipt").isNotBlank();
        });
        assertThat(browser.findElements(By.cssSelector("#timers tr.timer[data-status=fired]"))).as("the retry timer fired").isNotEmpty();
        // every time on the page reads from the story's start, the instant behind it on hover (the raw log keeps its instants)
        List<WebElement> times = browser.findElements(By.cssSelector("#timers time, #story time"));
        assertThat(times).as("the timers' and the rows' times, each step's").hasSizeGreaterThan(steps.size() + 6);
        assertThat(times).allSatisfy(time -> {
            assertThat(time.getText()).matches("[+-]\\d+:\\d{2}(:\\d{2})?");
            assertThat(time.getAttribute("title")).isEqualTo(time.getAttribute("datetime")).matches("2026-.*Z");
        });
        assertThat(browser.findElements(By.cssSelector("#timers td, #story table.rows td:not(:nth-child(5))")))
                .as("no instant in the timers' and the rows' cells (a receipt is the channel's own)")
                .allSatisfy(cell -> assertThat(cell.getText()).doesNotContainPattern("T\\d{2}:\\d{2}:\\d{2}"));
        assertThat(browser.findElement(By.id("driver-phone")).getText()).isEqualTo("+15550100");

        assertThat(Files.size(screenshot("ops-console-load"))).isGreaterThan(10_000);
    }

    @Test
    void theOverviewShowsTheDatabasesCountsEachLinkedToItsListAndTheLastHoursInCharts() throws Exception {
        signInAndOpen(stack.operator(), "/");

        long held = stack.count("SELECT count(*) FROM held_load");
        assertThat(browser.findElement(By.cssSelector("#count-held .value")).getText()).as("held loads").isEqualTo(Long.toString(held));
        assertThat(browser.findElement(By.cssSelector("#count-ambiguous .value")).getText()).as("ambiguous sends")
                .isEqualTo(Long.toString(stack.count("SELECT count(*) FROM outbox WHERE status = 'ambiguous'")));
        assertThat(browser.findElement(By.cssSelector("#count-held a")).getAttribute("href")).endsWith("/held");
        assertThat(browser.findElements(By.cssSelector("figure.chart svg[role=img]"))).as("four charts").hasSize(4);
        String inbound = browser.findElement(By.id("inbound-desc")).getAttribute("textContent");
        long logged = stack.count("SELECT count(*) FROM event_log WHERE kind = 'event' AND type IN ('LoadAssigned', 'LocationPing', 'InboundSms')");
        assertThat(inbound).as("the demo's events, all in the last hours").startsWith("from sources: " + String.format(java.util.Locale.ROOT, "%,d", logged) + " in all");
        assertThat(browser.findElement(By.id("sent-desc")).getAttribute("textContent")).as("the demo's SMS and Slack post")
                .contains("sms: ").contains("slack: ");
        assertThat(browser.findElement(By.cssSelector("meta[http-equiv=refresh]")).getAttribute("content")).isEqualTo("30");

        assertThat(Files.size(screenshot("ops-console-overview"))).isGreaterThan(10_000);
    }

    @Test
    void aLoadIsFoundByItsClientThroughTheFiltersAndOpenedFromTheList() {
        signInAndOpen(stack.operator(), "/loads");

        WebElement client = browser.findElement(By.id("f-client"));
        client.clear();
        client.sendKeys("client-a");
        browser.findElement(By.cssSelector("#f-active option[value='']")).click();
        browser.findElement(By.cssSelector("#load-filters button[type=submit]")).click();
        // the list before the filter shows the load too: its row is looked for once the filtered page is in
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> browser.getCurrentUrl().contains("client=client-a"));
        WebElement row = loaded(By.cssSelector("#loads tr.load[data-load='" + LocalRun.LOAD + "']"));

        assertThat(browser.getCurrentUrl()).contains("client=client-a");
        assertThat(row.getText()).contains("client-a").contains("+15550100");
        row.findElement(By.linkText(LocalRun.LOAD)).click();
        loaded(By.id("story"));
        assertThat(browser.findElement(By.id("load-id")).getText()).isEqualTo(LocalRun.LOAD);
    }

    @Test
    void aHeldLoadIsSkippedFromItsPageAndTheEventWaitingBehindItThenAppears() throws Exception {
        // a message the worker cannot read (clientId is no string), as a broken producer would send it
        unreadable(HELD_LOAD, "assign_9",
                "{\"eventId\": \"assign_9\", \"loadId\": \"" + HELD_LOAD + "\", \"type\": \"LoadAssigned\", \"payload\": {\"clientId\": 7}}");
        stack.ingest(HELD_LOAD, "an assignment behind the poison", """
                {"eventId": "assign_10", "type": "LoadAssigned", "occurredAt": "2026-11-30T08:00:00Z",
                 "payload": {"clientId": "client-a", "driverPhone": "+15550177", "stage": "dispatched"}}""");

        signInAndOpen(stack.operator(), "/held");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
            browser.navigate().refresh();
            return !browser.findElements(By.cssSelector("tr.held-load[data-load='" + HELD_LOAD + "']")).isEmpty();
        });
        browser.findElement(By.linkText(HELD_LOAD)).click();
        assertThat(loaded(By.id("hold")).getText()).contains("assign_9").contains("unreadable");
        assertThat(entries()).as("nothing of the load has run").isEmpty();

        browser.findElement(By.cssSelector("#hold .skip-reason")).sendKeys("producer sent a numeric clientId");
        browser.findElement(By.cssSelector("#hold button.skip")).click();

        assertThat(loaded(By.id("notice")).getText()).contains("Skipped the head message of load " + HELD_LOAD);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
            browser.navigate().refresh();
            return entries().stream().map(e -> e.getAttribute("data-type")).toList()
                    .containsAll(List.of("MessageSkipped", "LoadAssigned", "DecisionRecorded"));
        });
        List<String> types = entries().stream().map(e -> e.getAttribute("data-type")).toList();
        assertThat(types).startsWith("MessageSkipped", "LoadAssigned");
        assertThat(browser.findElements(By.cssSelector("#story > li")).getFirst().getText())
                .contains("by local-operator").contains("producer sent a numeric clientId");
        assertThat(browser.findElements(By.id("hold"))).as("the hold is over").isEmpty();
    }

    /**
     * Two loads held by one broken producer are skipped together from the held list: filtered by
     * when they were held, a dry run lists both, the confirmation skips both, each audited alone.
     */
    @Test
    void loadsHeldInOneSpanAreSkippedTogetherAfterADryRun() throws Exception {
        // a second before now on the database's clock, which the worker's holds are stamped with too, but after
        // every hold an earlier test of this class left (one made within that second would be listed with these)
        String since = java.time.Instant.ofEpochMilli(stack.count("SELECT (extract(epoch FROM greatest("
                + "clock_timestamp() - interval '1 second', (SELECT max(held_since) FROM held_load) + interval '1 millisecond'))"
                + " * 1000)::bigint")).toString();
        List<String> loads = List.of("481281", "481282");
        for (String load : loads) {
            unreadable(load, "bad_1", "{\"eventId\": \"bad_1\", \"loadId\": \"" + load + "\", \"type\": \"LoadAssigned\", "
                    + "\"occurredAt\": \"2026-11-30T08:00:00Z\", \"receivedAt\": \"2026-11-30T08:00:00Z\", \"payload\": {\"clientId\": 7}}");
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> {
            String held = get(WORKER_ADMIN + "/admin/loads/held?since=" + since, stack.operator());
            return loads.stream().allMatch(load -> held.contains("\"" + load + "\""));
        });

        signInAndOpen(stack.operator(), "/held");
        browser.get(stack.consoleUrl() + "/held?since=" + since);
        assertThat(browser.findElements(By.cssSelector("tr.held-load"))).extracting(row -> row.getAttribute("data-load"))
                .containsExactlyInAnyOrderElementsOf(loads);
        browser.findElement(By.cssSelector("#repair-action option[value=skip]")).click();
        browser.findElement(By.id("repair-reason")).sendKeys("the producer sent numeric client ids");
        browser.findElement(By.cssSelector("#repair-preview button[type=submit]")).click();

        assertThat(loaded(By.id("would-change")).getText()).isEqualTo("2");
        assertThat(browser.findElements(By.cssSelector("tr.would-repair"))).hasSize(2);
        assertThat(Files.size(screenshot("ops-console-held-repair"))).isGreaterThan(10_000);
        assertThat(get(WORKER_ADMIN + "/admin/loads/held?since=" + since, stack.operator())).as("the dry run skipped nothing")
                .contains("\"481281\"").contains("\"481282\"");
        browser.findElement(By.cssSelector("#repair-confirm button[type=submit]")).click();

        assertThat(loaded(By.id("notice")).getText()).contains("Skipped the head messages of 2 load(s)");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> {
            String held = get(WORKER_ADMIN + "/admin/loads/held?since=" + since, stack.operator());
            return loads.stream().noneMatch(load -> held.contains("\"" + load + "\""));
        });
        String audit = get(DISPATCHER_ADMIN + "/admin/audit?principal=local-operator", stack.operator());
        for (String load : loads) {
            assertThat(audit).as("each load's skip audited alone").contains("\"target\":\"" + load + "\"");
            assertThat(stack.count("SELECT count(*) FROM event_log WHERE load_id = '" + load + "' AND type = 'MessageSkipped'"))
                    .isEqualTo(1);
        }
    }

    /** The edit form's rules, replaced by {@code json}. */
    private void draft(String json) {
        WebElement rules = browser.findElement(By.id("sop-rules"));
        rules.clear();
        rules.sendKeys(json);
    }

    private static String rules(String firstText) {
        return """
                {"clientName": "Acme Foods", "askOn": ["high"],
                 "attempts": [{"wait": "PT30M", "text": "%s"}, {"wait": "PT30M", "text": "Still waiting on {loadId}"}],
                 "heroSlackChannel": "#hero-desk"}""".formatted(firstText);
    }

    /**
     * An operator drafts a client's SOP, previews it on one of the client's loads (nothing written),
     * saves it and a second version; the history shows what changed between them, the list the
     * version, and the next load's story names the version that decided it.
     */
    @Test
    void anSopIsPreviewedOnALoadThenSavedAndItsHistoryShowsTheDiff() throws Exception {
        String client = "client-sop-ui";
        String load = "481271";
        stack.ingest(load, "a load of the client", """
                {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "2026-11-30T08:00:00Z",
                 "payload": {"clientId": "%s", "driverPhone": "+15550171", "stage": "dispatched"}}""".formatted(client));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                .until(() -> stack.count("SELECT count(*) FROM event_log WHERE load_id = '" + load + "'") >= 2);
        signInAndOpen(stack.operator(), "/sops/" + client);
        assertThat(browser.findElement(By.id("no-version")).getText()).contains("configured rules");

        draft(rules("{clientName}: ETA for {loadId} ({stage})?"));
        browser.findElement(By.id("sop-load")).sendKeys(load);
        browser.findElement(By.id("sop-preview-button")).click();

        WebElement texts = loaded(By.id("preview-texts"));
        assertThat(texts.findElements(By.cssSelector("tr.preview-text td.text"))).extracting(WebElement::getText)
                .containsExactly("Acme Foods: ETA for " + load + " (dispatched)?", "Still waiting on " + load);
        assertThat(texts.findElements(By.cssSelector("tr.preview-text td.encoding"))).extracting(WebElement::getText)
                .containsExactly("GSM-7", "GSM-7");
        assertThat(browser.findElement(By.id("sop-rules")).getAttribute("value")).as("the draft stays in the form")
                .contains("{clientName}: ETA for {loadId} ({stage})?");
        assertThat(stack.count("SELECT count(*) FROM sop_version WHERE client_id = '" + client + "'")).as("a preview writes nothing")
                .isZero();
        assertThat(Files.size(screenshot("ops-console-sop-preview"))).isGreaterThan(10_000);

        browser.findElement(By.id("sop-reason")).sendKeys("the client's first SOP");
        browser.findElement(By.id("sop-save")).click();
        assertThat(loaded(By.id("notice")).getText()).contains("Saved as version 1");
        draft(rules("{clientName} dispatch: when will load {loadId} arrive?"));
        browser.findElement(By.id("sop-reason")).sendKeys("friendlier words");
        browser.findElement(By.id("sop-save")).click();
        await().atMost(Duration.ofSeconds(10)).until(() -> browser.getPageSource().contains("Saved as version 2"));

        assertThat(browser.findElement(By.id("current-version")).getText()).isEqualTo("2");
        WebElement second = browser.findElement(By.id("version-2"));
        assertThat(second.findElements(By.cssSelector(".diff-add"))).extracting(WebElement::getText)
                .anySatisfy(line -> assertThat(line).contains("when will load {loadId} arrive?"));
        assertThat(second.findElements(By.cssSelector(".diff-remove"))).extracting(WebElement::getText)
                .anySatisfy(line -> assertThat(line).contains("ETA for {loadId} ({stage})?"));
        browser.get(stack.consoleUrl() + "/sops");
        assertThat(loaded(By.cssSelector("tr.sop-client[data-client='" + client + "'] td.version")).getText()).isEqualTo("2");

        stack.ingest(load, "a high-risk ping", """
                {"eventId": "ping_1", "type": "LocationPing", "occurredAt": "2026-11-30T08:05:00Z",
                 "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                .until(() -> stack.count("SELECT count(*) FROM event_log WHERE load_id = '" + load + "' AND entry_id = 'dec:ping_1'") == 1);
        browser.get(stack.consoleUrl() + "/loads/" + load);
        assertThat(loaded(By.id("story")).getText()).contains("under SOP version 2 of " + client);
    }

    /** A draft the worker refuses: the page says which fields and why, in the worker's words, and no version is added. */
    @Test
    void aRefusedSopShowsEachWrongFieldAndSavesNothing() throws Exception {
        String client = "client-sop-bad";
        signInAndOpen(stack.operator(), "/sops/" + client);

        draft("""
                {"smsHours": {"from": "06:00", "to": "21:00"}, "attempts": [{"wait": "PT30M", "text": "ETA {eta}?"}],
                 "maxSegments": 0, "heroSlackChannel": "#hero-desk"}""");
        browser.findElement(By.id("sop-reason")).sendKeys("trying");
        browser.findElement(By.id("sop-save")).click();

        await().atMost(Duration.ofSeconds(10)).until(() -> browser.getPageSource().contains("refused the change"));
        assertThat(browser.findElement(By.tagName("body")).getText()).contains("load-worker refused the change")
                .contains("timeZone").contains("unknown placeholder {eta}").contains("maxSegments");
        assertThat(stack.count("SELECT count(*) FROM sop_version WHERE client_id = '" + client + "'")).isZero();
    }

    /**
     * Every page at a laptop's width (1,280 pixels): no sideways scrolling, one heading that names
     * the page, every form field labelled for a screen reader, and every text at least WCAG AA's
     * contrast against what it is drawn on (4.5:1, 3:1 for large text).
     */
    @Test
    void everyPageFitsALaptopAndIsReadableByAScreenReader() {
        signInAndOpen(stack.operator(), "/");
        browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 900));
        try {
            for (String path : List.of("/", "/loads", "/loads?client=client-a&active=", "/loads/" + LocalRun.LOAD, "/held", "/dead",
                    "/ambiguous", "/alerts", "/audit", "/sops", "/sops/client-sop-page")) {
                browser.get(stack.consoleUrl() + path);
                assertThat(browser.findElements(By.tagName("h1"))).as(path + ": one heading").hasSize(1);
                assertThat((Boolean) browser.executeScript(
                        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"))
                        .as(path + ": no sideways scrolling at 1,280 pixels").isTrue();
                assertThat(unlabelled()).as(path + ": form fields without a label").isEmpty();
                assertThat(lowContrast()).as(path + ": text below WCAG AA contrast").isEmpty();
            }
        } finally {
            browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 2200));
        }
    }

    @SuppressWarnings("unchecked")
    private List<String> unlabelled() {
        return (List<String>) browser.executeScript("""
                return [...document.querySelectorAll('input, select, textarea')]
                  .filter(f => f.type !== 'hidden' && f.type !== 'submit')
                  .filter(f => !f.getAttribute('aria-label') && !f.getAttribute('aria-labelledby') && !f.closest('label')
                     && !(f.id && document.querySelector('label[for="' + f.id + '"]')))
                  .map(f => f.outerHTML);""");
    }

    @SuppressWarnings("unchecked")
    private List<String> lowContrast() {
        return (List<String>) browser.executeScript("""
                const rgb = c => c.match(/[\\d.]+/g).map(Number);
                const luminance = c => {
                  const [r, g, b] = rgb(c).slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
                  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
                };
                const background = el => {
                  for (; el; el = el.parentElement) {
                    const c = getComputedStyle(el).backgroundColor, v = rgb(c);
                    if (v.length < 4 || v[3] > 0) return c;
                  }
                  return 'rgb(255, 255, 255)';
                };
                const low = [];
                for (const el of document.querySelectorAll('body *')) {
                  if (el.closest('svg') || ![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
                  const s = getComputedStyle(el);
                  if (s.display === 'none' || s.visibility === 'hidden' || !el.getClientRects().length) continue;
                  const a = luminance(s.color), b = luminance(background(el));
                  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
                  const size = parseFloat(s.fontSize), large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
                  if (ratio < (large ? 3 : 4.5)) low.push(el.tagName + ' "' + el.textContent.trim().slice(0, 40) + '" ' + ratio.toFixed(2) + ':1');
                }
                return low;""");
    }

    /**
     * A page of another origin on the same host (same site, so even a SameSite=Strict cookie goes
     * with its form) posts a skip to the console while an operator is signed in: refused for want
     * of the CSRF token, and the load stays held.
     */
    @Test
    void aFormPostedFromAnotherOriginChangesNothing() throws Exception {
        unreadable(TARGETED_LOAD, "garbled", "{\"eventId\": \"garbled\"}");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                .until(() -> get(WORKER_ADMIN + "/admin/loads/held", stack.operator()).contains("\"" + TARGETED_LOAD + "\""));
        signInAndOpen(stack.operator(), "/held");

        HttpServer attacker = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] page = """
                <!DOCTYPE html><html><body>
                <form id="f" method="post" action="%s/held/%s/skip">
                  <input name="reason" value="skipped by a page of another origin"><input name="from" value="held">
                </form>
                <script>document.getElementById('f').submit();</script>
                </body></html>""".formatted(stack.consoleUrl(), TARGETED_LOAD).getBytes(StandardCharsets.UTF_8);
        attacker.createContext("/", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        attacker.start();
        try {
            browser.get("http://127.0.0.1:" + attacker.getAddress().getPort() + "/");
            await().atMost(Duration.ofSeconds(10)).until(() -> browser.getCurrentUrl().startsWith(stack.consoleUrl()));
        } finally {
            attacker.stop(0);
        }

        assertThat(browser.getPageSource()).doesNotContain("Skipped the head message");
        assertThat(get(WORKER_ADMIN + "/admin/loads/held", stack.operator())).as("still held")
                .contains("\"" + TARGETED_LOAD + "\"");
        assertThat(get(DISPATCHER_ADMIN + "/admin/audit?principal=local-operator", stack.operator()))
                .doesNotContain("skipped by a page of another origin");
        browser.get(stack.consoleUrl() + "/held");
        assertThat(browser.findElements(By.cssSelector("tr.held-load[data-load='" + TARGETED_LOAD + "']")))
                .as("the operator's own console still shows it held").isNotEmpty();
    }

    @Test
    void aViewerSeesMaskedPhonesAndNoButtonThatChangesAnything() {
        signInAndOpen(stack.viewer(), "/loads/" + LocalRun.LOAD);

        assertThat(browser.findElement(By.id("who")).getText()).contains("local-viewer").contains("viewer");
        assertThat(browser.findElement(By.id("driver-phone")).getText()).isEqualTo("+1***00");
        assertThat(browser.findElements(By.cssSelector("main form[method=post]"))).isEmpty();
        browser.get(stack.consoleUrl() + "/held");
        assertThat(browser.findElements(By.cssSelector("main form[method=post]"))).isEmpty();
        assertThat(browser.findElements(By.id("repair-preview"))).isEmpty();
        browser.get(stack.consoleUrl() + "/dead");
        assertThat(browser.findElements(By.id("replay-preview"))).isEmpty();
        assertThat(browser.findElements(By.cssSelector("main form[method=post]"))).isEmpty();
    }

    /** Queues {@code body} for {@code load} as a broken producer would write it: the worker cannot read it, and holds the load. */
    private static void unreadable(String load, String messageId, String body) throws Exception {
        stack.sql("""
                INSERT INTO load_queue (load_id, message_id, body, enqueued_at) VALUES ('%1$s', '%2$s', '%3$s', now());
                INSERT INTO load_queue_group (load_id, visible_at) VALUES ('%1$s', now()) ON CONFLICT (load_id) DO NOTHING;
                SELECT pg_notify('loadflow_queue', '%1$s');""".formatted(load, messageId, body));
    }

    private static String get(String url, String token) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
    }
}
