package dev.loadflow.evals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.loadflow.model.policy.SopBook;
import dev.loadflow.evals.agent.ScriptedChatModel;
import dev.loadflow.evals.agent.ScriptedChatModel.Answer;
import dev.loadflow.evals.agent.ScriptedChatModel.Call;
import dev.loadflow.model.event.DecisionRecorded;
import dev.loadflow.model.event.InboundEvent;
import dev.loadflow.model.event.Provenance;
import dev.loadflow.model.event.Risk;
import dev.loadflow.model.json.EventCodec;
import dev.loadflow.model.log.RecordedEntry;
import dev.loadflow.store.outbox.OutboxRow;
import dev.loadflow.worker.agent.AgentMetrics;
import dev.loadflow.worker.agent.AgentPolicy;
import dev.loadflow.worker.run.LoadRun;
import dev.loadflow.worker.run.RunOutcome;
import dev.loadflow.worker.run.RunResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

import static dev.loadflow.testing.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent: client A's story decided by a chat model (a scripted OpenAI-compatible server, the
 * real HTTP client), behind the same filter and guard rails as in production. What it may not
 * do is refused, retried once and then decided by the SOP, in the log for all to see.
 */
class AgentScenarioTest extends EvalScenario {

    private static final String MODEL = "scripted-dispatcher-1";
    private final SimpleMeterRegistry agentMeters = new SimpleMeterRegistry();
    private ScriptedChatModel model;

    @AfterEach
    void stopModel() {
        if (model != null) {
            model.close();
        }
    }

    /** Points the worker at a scripted model answering with {@code script}, with {@code timeout} per call. */
    private AgentPolicy agent(Function<ScriptedChatModel.Request, Answer> script, Duration timeout) throws Exception {
        model = new ScriptedChatModel(script);
        OpenAiChatModel chat = OpenAiChatModel.builder().baseUrl(model.baseUrl()).apiKey("test-key").modelName(MODEL)
                .timeout(timeout).maxRetries(0).build();
        AgentPolicy policy = new AgentPolicy(chat, MODEL, SopBook.configured(client -> Harness.CLIENT_A), client -> null, new AgentMetrics(agentMeters, Set.of("client-a")));
        h.usePolicy(policy);
        return policy;
    }

    @Test
    void theModelIsGivenTheClientsSopVersionAndHeldToItsSmsHours() throws Exception {
        h.sops.add("client-a", dev.loadflow.model.json.SopRulesCodec.decode("""
                {"timeZone": "UTC", "smsHours": {"from": "08:00", "to": "20:00"},
                 "attempts": [{"wait": "PT30M", "text": "Morning! ETA for {loadId}?"}, {"wait": "PT30M", "text": "ETA {loadId}?"}],
                 "heroSlackChannel": "#hero-desk"}"""), "no texts before 8",
                new dev.loadflow.store.audit.AuditRecord("ops@example", "load-worker", "sop.put", "client-a", "{}"), time("06:00"));
        model = new ScriptedChatModel(SopLikeModel::answer);
        OpenAiChatModel chat = OpenAiChatModel.builder().baseUrl(model.baseUrl()).apiKey("test-key").modelName(MODEL)
                .timeout(Duration.ofSeconds(5)).maxRetries(0).build();
        h.usePolicy(new AgentPolicy(chat, MODEL, h.storedSops(), client -> null, new AgentMetrics(agentMeters, Set.of("client-a"))));

        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        String prompt = model.requests().getLast().body().path("messages").get(0).path("content").asText();
        assertThat(prompt).contains("version 1 of client-a's SOP").contains("\"smsHours\":{\"from\":\"08:00\",\"to\":\"20:00\"}")
                .contains("now 2026-11-30T07:01 there");
        assertThat(smsToDriver()).as("the model's text at 07:01 waits for the SMS hours").isEmpty();
        assertThat(decision("ping_0700").provenance().decidedBy()).isEqualTo(Provenance.LLM);
        assertThat(decision("ping_0700").sop()).isEqualTo(new dev.loadflow.model.event.SopRef("client-a", 1));

        int calls = model.calls();
        at("08:00").settle();
        assertThat(smsToDriver()).singleElement().satisfies(sms -> assertThat(sms.body()).contains("Morning! ETA for 481207?"));
        assertThat(model.calls()).as("the hours' timer is the SOP's to decide, not the model's").isEqualTo(calls);
    }

    /** The story of the ADR: assignment, a high-risk ping, no answer, the second SMS, the driver's answer. */
    private static void adrStory() {
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();
        at("07:31").settle();
        at("07:40").driverSays("sms_0740", "ETA 9:30, traffic on I-90").settle();
    }

    /** Every outbox row of the load: id → payload. */
    private static Map<String, String> rows() {
        Map<String, String> rows = new LinkedHashMap<>();
        for (RecordedEntry e : log().entries()) {
            if (e.entry() instanceof DecisionRecorded d) {
                d.actions().forEach(a -> rows.put(a.key(LOAD).toString(), h.outbox.find(a.key(LOAD).toString())
                        .map(OutboxRow::payload).orElseThrow()));
            }
        }
        return rows;
    }

    private static List<DecisionRecorded> decisions() {
        return log().entries().stream().map(RecordedEntry::entry).filter(e -> e instanceof DecisionRecorded)
                .map(DecisionRecorded.class::cast).toList();
    }

    private static DecisionRecorded decision(String eventId) {
        return decisions().stream().filter(d -> d.eventId().equals(eventId)).findFirst().orElseThrow();
    }

    @Test
    void theAdrStoryDecidedByTheModelLogsTheSameEntriesAndActionsAsTheSop() throws Exception {
        adrStory();
        List<String> sopLog = logIds();
        Map<String, String> sopRows = rows();
        List<String> sopSms = smsToDriver().stream().map(d -> d.idempotencyKey() + " " + d.body()).toList();
        h.close();
        h = Harness.start("agentstory", time("06:00"), Harness.POSTGRES_QUEUE);

        agent(SopLikeModel::answer, Duration.ofSeconds(5));
        adrStory();

        assertThat(logIds()).as("the same log, entry for entry").isEqualTo(sopLog);
        assertThat(rows()).as("the same actions, key and payload").isEqualTo(sopRows);
        assertThat(smsToDriver().stream().map(d -> d.idempotencyKey() + " " + d.body()).toList()).isEqualTo(sopSms);
        List<DecisionRecorded> byModel = decisions().stream().filter(d -> !d.filtered()).toList();
        assertThat(byModel).extracting(d -> d.eventId()).containsExactly("assign_1", "ping_0700",
                "evt:tmr:" + LOAD + ":" + ASK + ":1", "sms_0740");
        assertThat(byModel).allSatisfy(d -> {
            assertThat(d.provenance().decidedBy()).isEqualTo(Provenance.LLM);
            assertThat(d.provenance().model()).isEqualTo(MODEL);
            assertThat(d.provenance().promptHash()).hasSize(12);
            assertThat(d.provenance().tokensIn()).isEqualTo(420);
            assertThat(d.provenance().tokensOut()).isEqualTo(35);
        });
        assertThat(model.calls()).as("one call per event the filter let through").isEqualTo(byModel.size());
        assertThat(model.requests()).extracting(ScriptedChatModel.Request::eventType)
                .as("outcomes never reach the model").doesNotContain("ActionOutcome");
        long inbound = logIds().stream().filter(id -> !id.startsWith("dec:")).count();
        System.out.printf("agent: %d model calls for %d inbound events (%.2f per event)%n", model.calls(), inbound,
                (double) model.calls() / inbound);
    }

    @Test
    void anUnknownToolIsRefusedAndTheRetriedAnswerDecides() throws Exception {
        agent(request -> request.eventType().equals("LocationPing") && request.refusedBefore() == 0
                ? Answer.of("texting the driver", new Call("send_fax", "{\"to\": \"+15550100\"}"))
                : SopLikeModel.answer(request), Duration.ofSeconds(5));
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        DecisionRecorded decided = decision("ping_0700");
        assertThat(decided.provenance().decidedBy()).isEqualTo(Provenance.LLM);
        assertThat(decided.provenance().tokensIn()).as("both answers' tokens").isEqualTo(840);
        expectSmsKeys(key(1, "send_sms"));
        JsonNode retry = model.requests().getLast().body().path("messages");
        assertThat(retry.toString()).as("the refusal is sent back to the model").contains("unknown tool 'send_fax'");
    }

    @Test
    void anSmsToAnotherNumberTwiceFallsBackToTheSopAndTheLogSaysWhy() throws Exception {
        agent(request -> request.eventType().equals("LocationPing")
                ? Answer.of("texting the dispatcher instead", new Call("send_sms",
                        "{\"to\": \"+15559999\", \"text\": \"ETA?\"}"), new Call("set_timer", "{\"after_seconds\": 1800}"))
                : SopLikeModel.answer(request), Duration.ofSeconds(5));
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();

        DecisionRecorded decided = decision("ping_0700");
        assertThat(decided.provenance().decidedBy()).isEqualTo(Provenance.SOP_FALLBACK);
        assertThat(decided.provenance().note()).contains("answer 2 refused").contains("+15559999").contains(DRIVER);
        assertThat(decided.reason()).isEqualTo("high-risk ping: ETA ask opened");
        assertThat(smsToDriver()).hasSize(1);
        assertThat(smsToDriver().getFirst().body()).contains("\"to\":\"" + DRIVER + "\"");
        assertThat(model.requests()).filteredOn(r -> r.eventType().equals("LocationPing")).hasSize(2);
        assertThat(agentMeters.get("loadflow.policy.llm.fallbacks").tag("reason", "refused").counter().count()).isOne();
    }

    @Test
    void anAttemptPastMaxAttemptsIsRefusedAndTheSopHandsTheLoadToAHero() throws Exception {
        agent(request -> request.eventType().equals("TimerFired") && request.event().path("payload").path("attempt").asInt() == 3
                ? Answer.of("one more try", new Call("send_sms", "{\"to\": \"" + DRIVER + "\", \"text\": \"ETA??\"}"),
                        new Call("set_timer", "{\"after_seconds\": 1800}"))
                : SopLikeModel.answer(request), Duration.ofSeconds(5));
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);
        at("07:01").settle();
        at("07:31").settle();
        at("08:01").settle();
        at("08:31").settle();

        DecisionRecorded last = decision("evt:tmr:" + LOAD + ":" + ASK + ":3");
        assertThat(last.provenance().decidedBy()).isEqualTo(Provenance.SOP_FALLBACK);
        assertThat(last.provenance().note()).contains("attempt 4").contains("max-attempts (3)");
        assertThat(smsToDriver()).as("never a fourth SMS").hasSize(3);
        assertThat(heroTasks()).hasSize(1);
    }

    @Test
    void aModelThatHangsFallsBackInTimeAndNothingIsSentTwice() throws Exception {
        agent(request -> request.eventType().equals("LocationPing")
                ? SopLikeModel.answer(request).after(Duration.ofSeconds(5))
                : SopLikeModel.answer(request), Duration.ofMillis(400));
        at("06:55").assigned().settle();
        at("07:00").ping("ping_0700", Risk.HIGH);

        long started = System.nanoTime();
        at("07:01").settle();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        DecisionRecorded decided = decision("ping_0700");
        assertThat(decided.provenance().decidedBy()).isEqualTo(Provenance.SOP_FALLBACK);
        assertThat(decided.provenance().note()).isEqualTo("the model did not answer in time");
        assertThat(took).as("decided by the SOP well before the model would have answered").isLessThan(Duration.ofSeconds(4));
        assertThat(model.requests()).filteredOn(r -> r.eventType().equals("LocationPing")).as("a timeout is not retried").hasSize(1);
        await("the hung call answers, to nobody").atMost(Duration.ofSeconds(8)).until(() -> model.finished() == model.calls());
        at("07:02").settle();
        expectSmsKeys(key(1, "send_sms"));
        assertThat(logged("dec:ping_0700")).isOne();
    }

    @Test
    void twoRunsRacingOnOneLoadAskTheModelOnceWithTheLockAndWasteACallWithout() throws Exception {
        AgentPolicy policy = agent(request -> SopLikeModel.answer(request).after(Duration.ofMillis(600)), Duration.ofSeconds(5));
        at("06:55").assigned().settle();
        int before = model.calls();

        List<RunOutcome> locked = race(h.workerWith(policy, h.loadLock()), h.workerWith(policy, h.loadLock()),
                ping("ping_0700"));
        assertThat(locked).extracting(RunOutcome::result).containsExactlyInAnyOrder(RunResult.DECIDED, RunResult.LOCKED);
        assertThat(model.calls() - before).as("the loser never asked").isEqualTo(1);

        List<RunOutcome> unlocked = race(h.workerWith(policy), h.workerWith(policy), ping("ping_0800"));
        assertThat(unlocked).extracting(RunOutcome::result).containsExactlyInAnyOrder(RunResult.DECIDED, RunResult.DUPLICATE);
        assertThat(model.requests()).filteredOn(r -> r.event().path("eventId").asText().equals("ping_0800"))
                .as("both runs asked").hasSize(2);
        assertThat(h.workerRegistry().get("loadflow.policy.llm.wasted.decisions").counter().count())
                .as("the loser's call, wasted").isOne();
        assertThat(logged("dec:ping_0800")).as("the loser's decision is not logged").isOne();
    }

    @Test
    void aBatchOfLoadsAsksTheModelForEveryLoadAtOnce() throws Exception {
        java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        CountDownLatch all = new CountDownLatch(4);
        AgentPolicy policy = agent(request -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            all.countDown();
            try {
                all.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            inFlight.decrementAndGet();
            return SopLikeModel.answer(request);
        }, Duration.ofSeconds(20));
        List<InboundEvent> batch = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            batch.add(EventCodec.parseIngest("48130" + i, """
                    {"eventId": "assign_1", "type": "LoadAssigned", "occurredAt": "%s",
                     "payload": {"clientId": "client-a", "driverPhone": "%s", "stage": "dispatched"}}""".formatted(h.clock.instant(), DRIVER),
                    h.clock.instant()));
        }

        List<RunOutcome> outcomes = h.workerWith(policy, h.loadLock()).processAll(batch);

        assertThat(outcomes).extracting(RunOutcome::result).containsOnly(RunResult.DECIDED);
        assertThat(most.get()).as("the four loads' model calls at once, not one after another").isEqualTo(4);
    }

    private static InboundEvent ping(String eventId) {
        return EventCodec.parseIngest(LOAD, """
                {"eventId": "%s", "type": "LocationPing", "occurredAt": "%s",
                 "payload": {"risk": "high", "lat": 41.9, "lon": -87.6}}""".formatted(eventId, h.clock.instant()), h.clock.instant());
    }

    /** Runs {@code event} on both workers at once. */
    private static List<RunOutcome> race(LoadRun a, LoadRun b, InboundEvent event) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<RunOutcome>> runs = new ArrayList<>();
        for (LoadRun run : List.of(a, b)) {
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return run.process(event);
            }));
        }
        start.countDown();
        List<RunOutcome> outcomes = new ArrayList<>();
        for (CompletableFuture<RunOutcome> run : runs) {
            outcomes.add(run.get());
        }
        return outcomes;
    }
}
